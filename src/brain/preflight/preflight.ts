import type { NatsConnection } from '@nats-io/nats-core';
import {
  PreflightReplySchema,
  preflightSubject,
  readWireJson,
  type PreflightReply,
} from '../../protocol/index.js';
import type { ToolLimits } from '../../config/index.js';
import type { ToolView } from '../api/index.js';
import { withLimitWarnings } from './limits.js';

/** A tool's last preflight answer, or why there was none. */
export type PreflightResult = { reply: PreflightReply; at: number } | { error: string; at: number };

/**
 * Asks workers whether their backend is configured and reachable (`caesar.preflight.tool.*`)
 * and keeps each answer for `ttlMs`, so `GET /v1/tools` does not fan out on every request.
 * No answer (a timeout, no responder, a malformed reply) is kept only for `errorTtlMs`
 * (default 0: the next question asks again): a worker that was slow once, on a busy host,
 * must not be reported as silent for the next half minute. Questions in flight are shared.
 * With `limits` (`tools.limits`), each answer carries a warning per requirement beyond them
 * after the worker's own (ADR 0091).
 */
export class PreflightCache {
  readonly #nc: NatsConnection;
  readonly #ttlMs: number;
  readonly #timeoutMs: number;
  readonly #errorTtlMs: number;
  readonly #limits: ToolLimits | undefined;
  readonly #results = new Map<string, PreflightResult>();
  readonly #inflight = new Map<string, Promise<PreflightResult>>();

  constructor(
    nc: NatsConnection,
    options: { ttlMs?: number; timeoutMs?: number; errorTtlMs?: number; limits?: ToolLimits } = {},
  ) {
    this.#nc = nc;
    this.#ttlMs = options.ttlMs ?? 30_000;
    this.#timeoutMs = options.timeoutMs ?? 2000;
    this.#errorTtlMs = options.errorTtlMs ?? 0;
    this.#limits = options.limits;
  }

  async get(tool: string): Promise<PreflightResult> {
    const hit = this.#results.get(tool);
    const ttl = hit && 'error' in hit ? this.#errorTtlMs : this.#ttlMs;
    if (hit && Date.now() - hit.at < ttl) return hit;
    let p = this.#inflight.get(tool);
    if (!p) {
      p = this.#ask(tool).finally(() => this.#inflight.delete(tool));
      this.#inflight.set(tool, p);
    }
    return p;
  }

  async #ask(tool: string): Promise<PreflightResult> {
    let result: PreflightResult;
    try {
      const msg = await this.#nc.request(preflightSubject(tool), undefined, {
        timeout: this.#timeoutMs,
      });
      const read = readWireJson(msg.data);
      if ('why' in read) throw new Error(`preflight answer is ${read.why}`);
      const reply = PreflightReplySchema.parse(read.value);
      const limits = this.#limits;
      result = { reply: limits ? withLimitWarnings(reply, limits) : reply, at: Date.now() };
    } catch (err) {
      result = { error: (err as Error).message, at: Date.now() };
    }
    this.#results.set(tool, result);
    return result;
  }
}

/** The `preflight` part of a ToolView. */
export function preflightView(r: PreflightResult): ToolView['preflight'] {
  const checkedAt = new Date(r.at).toISOString();
  const state = preflightState(r);
  if ('error' in r) {
    return { ok: null, state, detail: [`error: ${r.error}`], checked_at: checkedAt };
  }
  const failing = r.reply.checks
    .filter((c) => !c.ok)
    .map((c) => (c.detail ? `${c.name}: ${c.detail}` : c.name));
  const detail = [...failing, ...r.reply.warnings];
  return { ok: r.reply.ok, state, detail, checked_at: checkedAt };
}

/**
 * Whether the answer carries warnings (a requirement the host does not meet, or beyond
 * `tools.limits`): each call the policy allows then waits for a human (ADR 0091).
 */
export function preflightWarns(r: PreflightResult): boolean {
  return 'reply' in r && r.reply.warnings.length > 0;
}

/** The name of the check a tool fails when its backend is not configured (SDK `notConfigured`). */
const CONFIGURED_CHECK = 'configured';

/** The state a preflight puts a tool in, for tables and summaries. */
export type PreflightState = 'ready' | 'not_configured' | 'not_ready' | 'unknown';

export function preflightState(r: PreflightResult): PreflightState {
  if ('error' in r) return 'unknown';
  if (r.reply.ok) return 'ready';
  const unconfigured = r.reply.checks.some((c) => c.name === CONFIGURED_CHECK && !c.ok);
  return unconfigured ? 'not_configured' : 'not_ready';
}

/**
 * One line for `caesar up` and `caesar legion list`: "web_search: not configured: set …", or
 * "big_render: ready, warns: min_vcpus: …" for a ready tool whose calls will wait for a human.
 */
export function describePreflight(tool: string, r: PreflightResult): string {
  const view = preflightView(r);
  const detail = view.detail.join('; ');
  switch (preflightState(r)) {
    case 'ready':
      if (preflightWarns(r)) return `${tool}: ready, warns: ${detail}`;
      return `${tool}: ready${detail ? ` (${detail})` : ''}`;
    case 'unknown':
      return `${tool}: preflight failed: ${detail}`;
    case 'not_configured':
      return `${tool}: not configured: ${detail.replace(/^configured: /, '')}`;
    case 'not_ready':
      return `${tool}: not ready: ${detail}`;
  }
}
