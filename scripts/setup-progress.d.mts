// Types of setup-progress.mjs, for the tests that import it (scripts/ is plain JavaScript:
// setup.mjs runs before anything is compiled).

export declare const HEARTBEAT_MS: number;

export declare function formatElapsed(ms: number): string;

export interface PhaseOptions {
  say: (line: string) => void;
  now?: () => number;
  every?: number;
  schedule?: (tick: () => void, ms: number) => unknown;
  cancel?: (timer: unknown) => void;
}

export interface Phase {
  doing(text: string): void;
  done(): void;
  failed(): void;
}

export declare function startPhase(name: string, options: PhaseOptions): Phase;

export declare function npmActivity(): { read(line: string): string | undefined };
