import type { PreflightResult } from '../../src/legion/index.js';
import type { ProbeOutcome, SearchBackend } from './backends/backend.js';
import type { BackendName } from './config.js';
import { redactSecrets, type Secret } from './secret.js';

/**
 * The preflight of a configured web_search: every backend probed at once, its checks named
 * `<backend>.<check>` (`searxng.connect`, `brave.auth`, `searxng.json_format`) so an operator
 * sees which step of which backend failed. `ok` when at least one backend is ready; a warning
 * for each one that is not.
 *
 * A Brave probe is a real search that Brave bills, so a passing one is reused for
 * `cacheMs` (a failing one is not: Brave bills only successful requests, and the operator
 * wants to see a fix at once). SearXNG and Tavily probes cost nothing and always run.
 */

/** @default 5 minutes: how long a passing probe that spent quota is reused. */
export const PREFLIGHT_CACHE_MS = 5 * 60_000;

interface Probed {
  readonly backend: SearchBackend;
  readonly outcome: ProbeOutcome;
  /** Set when the outcome is a cached one: how old it is. */
  readonly ageMs?: number;
}

interface BackendPreflightOptions {
  readonly cacheMs: number;
  readonly now: () => number;
  readonly secrets: readonly Secret[];
}

export class BackendPreflight {
  readonly #backends: readonly SearchBackend[];
  readonly #options: BackendPreflightOptions;
  readonly #passed = new Map<BackendName, { at: number; outcome: ProbeOutcome }>();
  readonly #running = new Map<BackendName, Promise<ProbeOutcome>>();

  constructor(backends: readonly SearchBackend[], options: BackendPreflightOptions) {
    this.#backends = backends;
    this.#options = options;
  }

  async run(): Promise<PreflightResult> {
    const probed = await Promise.all(this.#backends.map((b) => this.#probe(b)));
    const ready = probed.filter((p) => p.outcome.ok).map((p) => p.backend.name);
    return {
      ok: ready.length > 0,
      checks: probed.flatMap((p) => this.#checks(p)),
      warnings: probed.filter((p) => !p.outcome.ok).map((p) => this.#warning(p, ready)),
    };
  }

  async #probe(backend: SearchBackend): Promise<Probed> {
    const { cacheMs, now } = this.#options;
    const cached = this.#passed.get(backend.name);
    if (backend.probeSpendsQuota && cached !== undefined && now() - cached.at < cacheMs) {
      return { backend, outcome: cached.outcome, ageMs: now() - cached.at };
    }
    // Two preflights at once share one probe.
    let running = this.#running.get(backend.name);
    if (running === undefined) {
      running = backend.probe().finally(() => this.#running.delete(backend.name));
      this.#running.set(backend.name, running);
    }
    const outcome = await running;
    if (backend.probeSpendsQuota && outcome.ok)
      this.#passed.set(backend.name, { at: now(), outcome });
    else this.#passed.delete(backend.name);
    return { backend, outcome };
  }

  #checks({ backend, outcome, ageMs }: Probed) {
    const checks = outcome.checks.map((c) => ({
      name: `${backend.name}.${c.name}`,
      ok: c.ok,
      ...(c.detail === undefined ? {} : { detail: this.#clean(c.detail) }),
    }));
    if (ageMs === undefined) return checks;
    const minutes = Math.round(this.#options.cacheMs / 60_000);
    const detail = `from a probe ${Math.round(ageMs / 1000)} s ago: ${backend.label} bills every search, so a passing probe is reused for ${minutes} min`;
    return [...checks, { name: `${backend.name}.cached`, ok: true, detail }];
  }

  #warning({ backend, outcome }: Probed, ready: readonly BackendName[]): string {
    const failed = outcome.checks.find((c) => !c.ok);
    const why =
      failed === undefined ? 'probe failed' : `${failed.name}: ${failed.detail ?? 'failed'}`;
    const then =
      ready.length > 0 ? `calls fall back to ${ready.join(', ')}` : 'no backend is ready';
    return this.#clean(`${backend.name} is not ready (${why}); ${then}`);
  }

  #clean(text: string): string {
    return redactSecrets(text, this.#options.secrets).slice(0, 2000);
  }
}
