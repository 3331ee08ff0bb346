// Types of suite-cpu.mjs, for the test that imports it (scripts/ is plain JavaScript).

export interface FileCpu {
  file: string;
  cpu_self_s: number;
  cpu_children_s: number;
  wall_s: number;
  cpu_s: number;
}

export interface SuiteCpu {
  files: number;
  cpu_self_s: number;
  cpu_children_s: number;
  top: FileCpu[];
}

export declare function summarize(text: string, top?: number): SuiteCpu;

export declare function formatSummary(summary: SuiteCpu): string[];
