import { EventEmitter } from 'node:events';
import type { Subscription } from '@nats-io/nats-core';
import { serviceName, type Bye, type Hello } from '../../protocol/index.js';
import { listenForAnnouncements } from './announcements.js';
import { checkHints, confirmInfo, confirmPing } from './confirm.js';
import { sweepInfo } from './discovery.js';
import { SpecCache, type ToolInstanceInfo } from './instance.js';
import {
  normaliseRegistryOptions,
  type RegistryOptions,
  type RegistrySettings,
} from './options.js';
import { specChangeMessage, SpecTrust } from './spec-trust.js';
import type {
  InstanceRemovedEvent,
  RegistryEvents,
  RemovalReason,
  SpecChangedEvent,
  SweepEvent,
} from './events.js';
import { buildToolView, type RegisteredInstance, type RegisteredTool } from './view.js';

interface Entry {
  instance: RegisteredInstance;
  /** performance.now() of the last hello or sweep answer. */
  lastSeen: number;
  misses: number;
}

const key = (tool: string, id: string) => `${tool}/${id}`;

/** Instances confirmed per sweep at most; a flood of hints waits for later sweeps. */
const MAX_CONFIRMS_PER_SWEEP = 512;

/** `start()` or `sweep()` on a registry that was closed. */
export class RegistryClosedError extends Error {
  override readonly name = 'RegistryClosedError';
  constructor() {
    super('the registry is closed');
  }
}

/**
 * The brain's live map tool -> instances + spec. Learns instances from hellos at once,
 * sweeps `$SRV.INFO` every `sweepIntervalMs` to find instances whose hello it missed and
 * to drop those that miss `maxMissedSweeps` sweeps in a row, and drops an instance at once
 * on its bye. A tool disappears with its last instance. See docs/adr/0005-registry-liveness.md.
 *
 * Hellos, byes and answers to the generic sweep are hints: any identity allowed to announce
 * or to answer `$SRV.INFO` can send them. An instance and its spec are believed only from
 * its own `$SRV.<verb>.<service>.<id>` subjects, which permissions reserve to its tool's
 * identity, and a spec never lowers the safety settings first trusted for its tool
 * (docs/adr/0007-registry-trust.md).
 */
export class Registry extends EventEmitter<RegistryEvents> implements AsyncDisposable {
  readonly #s: RegistrySettings;
  readonly #specs = new SpecCache();
  readonly #trust = new SpecTrust();
  readonly #tools = new Map<string, { entries: Map<string, Entry>; view?: RegisteredTool }>();
  readonly #tombstones = new Map<string, number>();
  readonly #fetching = new Set<string>();
  readonly #checkingBye = new Set<string>();
  #subs: Subscription[] = [];
  #status: AsyncIterable<unknown> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<SweepEvent> | undefined;
  #sweeps = 0;
  #connected = true;
  /** Bumped on every disconnect and reconnect: a sweep that spans one proves nothing. */
  #epoch = 0;
  #started: Promise<void> | undefined;
  #closed = false;

  constructor(options: RegistryOptions) {
    super();
    this.#s = normaliseRegistryOptions(options);
  }

  /** Listens for announcements, runs the first sweep (awaited), then sweeps periodically. */
  start(): Promise<void> {
    if (this.#closed) return Promise.reject(new RegistryClosedError());
    return (this.#started ??= (async () => {
      const { nc, logger } = this.#s;
      this.#subs = listenForAnnouncements(
        nc,
        { hello: (h) => this.#onHello(h), bye: (b) => this.#onBye(b) },
        logger,
      );
      this.#watchConnection();
      await nc.flush();
      await this.sweep();
      this.#schedule(this.#s.sweepIntervalMs);
    })());
  }

  /** Every tool with a live instance, sorted by name. Snapshots: they never change. */
  tools(): RegisteredTool[] {
    return [...this.#tools.keys()].sort().flatMap((name) => {
      const t = this.tool(name);
      return t ? [t] : [];
    });
  }

  /** One tool, or undefined when no instance of it is live. */
  tool(name: string): RegisteredTool | undefined {
    const state = this.#tools.get(name);
    if (!state) return undefined;
    return (state.view ??= buildToolView(
      name,
      [...state.entries.values()].map((e) => e.instance),
      this.#trust,
    ));
  }

  /** Sweeps now (the timer also calls this); joins a sweep already running. */
  sweep(): Promise<SweepEvent> {
    if (this.#closed) return Promise.reject(new RegistryClosedError());
    return (this.#sweeping ??= this.#runSweep(true).finally(() => {
      this.#sweeping = undefined;
    }));
  }

  /** Stops the timer and the subscriptions. The registry keeps its last map. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    (this.#status as { stop?: () => void } | undefined)?.stop?.();
    await Promise.allSettled(this.#subs.map((s) => s.drain()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #runSweep(countMisses: boolean): Promise<SweepEvent> {
    const seq = ++this.#sweeps;
    const startedAt = performance.now();
    const epoch = this.#epoch;
    const { nc, sweepWindowMs, infoTimeoutMs, logger } = this.#s;
    const { instances: hints, invalid } = await sweepInfo(nc, sweepWindowMs, this.#specs);
    const checked = await checkHints(
      nc,
      hints.filter((h) => !this.#tombstones.has(key(h.tool, h.id))),
      {
        timeoutMs: infoTimeoutMs,
        specs: this.#specs,
        knownSha: (tool, id) => this.#tools.get(tool)?.entries.get(id)?.instance.specSha256,
        maxInstances: MAX_CONFIRMS_PER_SWEEP,
      },
    );
    const now = performance.now();
    const counted = countMisses && this.#connected && epoch === this.#epoch && !this.#closed;
    const event: SweepEvent = {
      seq,
      durationMs: now - startedAt,
      replies: hints.length,
      invalid: invalid.length,
      unconfirmed: checked.unconfirmed,
      countedMisses: counted,
    };
    if (this.#closed) return event;
    for (const reason of invalid) logger.debug({ reason }, 'ignoring invalid INFO reply');
    for (const reason of checked.reasons) logger.debug({ reason }, 'sweep answer not confirmed');
    const answered = new Set(checked.alive);
    for (const k of checked.alive) this.#seen(k, now);
    for (const info of checked.confirmed) {
      answered.add(key(info.tool, info.id));
      this.#observe(info, 'sweep', now);
    }
    if (counted) this.#countMisses(answered, startedAt, seq);
    for (const [k, expires] of this.#tombstones) if (expires <= now) this.#tombstones.delete(k);
    this.#emit('sweep', event);
    return event;
  }

  #countMisses(answered: Set<string>, startedAt: number, seq: number): void {
    for (const [tool, state] of [...this.#tools]) {
      for (const [id, entry] of [...state.entries]) {
        // Learned (or heard from) after this sweep asked: it could not have answered it.
        if (answered.has(key(tool, id)) || entry.lastSeen >= startedAt) continue;
        entry.misses++;
        if (entry.misses >= this.#s.maxMissedSweeps) this.#remove(tool, id, 'missed_sweeps', seq);
      }
    }
  }

  /** A known instance answered its own PING: it is alive. */
  #seen(k: string, now: number): void {
    const [tool = '', id = ''] = k.split('/');
    const entry = this.#tools.get(tool)?.entries.get(id);
    if (!entry) return;
    entry.lastSeen = now;
    entry.misses = 0;
  }

  /**
   * Records what an instance confirmed on its own subject: adds it if new, else marks it
   * seen. A known instance keeps the spec it first confirmed (ids are never reused, so a
   * real worker never changes its spec under one id).
   */
  #observe(info: ToolInstanceInfo, source: 'hello' | 'sweep', now: number): void {
    if (this.#closed || this.#tombstones.has(key(info.tool, info.id))) return;
    let state = this.#tools.get(info.tool);
    const entry = state?.entries.get(info.id);
    if (entry) {
      entry.lastSeen = now;
      entry.misses = 0;
      if (entry.instance.specSha256 === info.specSha256) return;
      const change = this.#trust.instanceChanged(entry.instance, info);
      if (change) this.#reportSpecChange(change);
      return;
    }
    if (!state) this.#tools.set(info.tool, (state = { entries: new Map() }));
    const instance: RegisteredInstance = Object.freeze({ ...info, addedAt: Date.now(), source });
    state.entries.set(info.id, { instance, lastSeen: now, misses: 0 });
    state.view = undefined;
    this.#s.logger.info(
      { tool: info.tool, instanceId: info.id, host: info.host, version: info.version, source },
      'tool instance added',
    );
    this.#emit('instance_added', { tool: info.tool, instance });
    const change = this.#trust.admitNew(info);
    if (change) this.#reportSpecChange(change);
  }

  /** Logs, then emits `spec_changed` (the brain audits it). */
  #reportSpecChange(event: SpecChangedEvent): void {
    this.#s.logger.warn({ ...event }, specChangeMessage(event));
    this.#emit('spec_changed', event);
  }

  #remove(tool: string, id: string, reason: RemovalReason, sweep?: number): void {
    const state = this.#tools.get(tool);
    const entry = state?.entries.get(id);
    if (!state || !entry) return;
    state.entries.delete(id);
    state.view = undefined;
    const toolRemoved = state.entries.size === 0;
    if (toolRemoved) this.#tools.delete(tool);
    this.#s.logger.info(
      { tool, instanceId: id, host: entry.instance.host, reason },
      'tool instance removed',
    );
    const event: InstanceRemovedEvent = { tool, instance: entry.instance, reason, toolRemoved };
    if (sweep !== undefined) event.sweep = sweep;
    this.#emit('instance_removed', event);
  }

  #onHello(hello: Hello): void {
    const k = key(hello.tool, hello.instance_id);
    if (this.#closed || this.#tombstones.has(k)) return;
    if (hello.service !== serviceName(hello.tool)) {
      this.#s.logger.debug({ hello }, 'ignoring hello whose service does not match its tool');
      return;
    }
    // Any client allowed to announce may publish a hello naming anything, so a hello is only
    // a hint: the instance is listed (or kept alive) by the INFO answer from its own $SRV
    // subject, which only it can subscribe to under least-privilege permissions. One round
    // trip per hello; hellos come once per worker start.
    if (this.#fetching.has(k)) return;
    this.#fetching.add(k);
    void this.#fetchAnnounced(hello).finally(() => this.#fetching.delete(k));
  }

  /** A hello: read the instance's INFO from its own subject and list what that says. */
  async #fetchAnnounced(hello: Hello): Promise<void> {
    const { nc, logger, infoTimeoutMs } = this.#s;
    try {
      const c = await confirmInfo(nc, hello.tool, hello.instance_id, infoTimeoutMs, this.#specs);
      if (this.#closed) return;
      if (c.kind === 'unconfirmed') {
        logger.debug({ hello, reason: c.reason }, 'announced instance not confirmed; not listed');
        this.#emit('hello_unconfirmed', {
          tool: hello.tool,
          instanceId: hello.instance_id,
          reason: c.reason,
        });
        return;
      }
      this.#observe(c.instance, 'hello', performance.now());
    } catch (err) {
      if (!this.#closed) logger.warn({ err, hello }, 'INFO request after hello failed');
    }
  }

  /**
   * Any client allowed to announce may publish a bye naming any instance, so a bye for a
   * live instance is checked first: the instance's own `$SRV.PING` subject. A worker closes
   * discovery before it says bye, so a real goodbye meets no responders and the instance
   * goes at once (one round trip); one that still answers stays, and `bye_refused` says so.
   */
  #onBye(bye: Bye): void {
    if (this.#closed) return;
    const k = key(bye.tool, bye.instance_id);
    if (!this.#tools.get(bye.tool)?.entries.has(bye.instance_id)) {
      // not (yet) known: keep INFO replies still in flight from adding it
      this.#tombstones.set(k, performance.now() + this.#s.tombstoneMs);
      return;
    }
    if (this.#checkingBye.has(k)) return;
    this.#checkingBye.add(k);
    void this.#confirmBye(bye, k).finally(() => this.#checkingBye.delete(k));
  }

  async #confirmBye(bye: Bye, k: string): Promise<void> {
    const { nc, logger, infoTimeoutMs } = this.#s;
    let answered = false;
    try {
      answered = await confirmPing(nc, bye.tool, bye.instance_id, infoTimeoutMs);
    } catch (err) {
      if (!this.#closed) logger.warn({ err, bye }, 'PING after bye failed; taking the bye');
    }
    if (this.#closed) return;
    if (answered) {
      logger.warn(
        { tool: bye.tool, instance: bye.instance_id },
        'ignored a bye for an instance that still answers its PING (spoofed or early)',
      );
      this.#emit('bye_refused', { tool: bye.tool, instanceId: bye.instance_id });
      return;
    }
    this.#tombstones.set(k, performance.now() + this.#s.tombstoneMs);
    this.#remove(bye.tool, bye.instance_id, 'bye');
  }

  #schedule(delayMs: number): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      const started = performance.now();
      void this.sweep()
        .catch((err: unknown) => {
          if (!this.#closed) this.#s.logger.warn({ err }, 'registry sweep failed');
        })
        .finally(() => {
          const spent = performance.now() - started;
          this.#schedule(Math.max(0, this.#s.sweepIntervalMs - spent));
        });
    }, delayMs);
    this.#timer.unref();
  }

  /** Misses seen while disconnected say nothing about workers; after a reconnect, look again. */
  #watchConnection(): void {
    const status = this.#s.nc.status();
    this.#status = status;
    void (async () => {
      for await (const s of status) {
        if (s.type === 'disconnect') {
          this.#connected = false;
          this.#epoch++;
        } else if (s.type === 'reconnect') {
          this.#connected = true;
          this.#epoch++;
          if (!this.#closed && !this.#sweeping) {
            const sweep = this.#runSweep(false).finally(() => {
              this.#sweeping = undefined;
            });
            this.#sweeping = sweep;
            sweep.catch((err: unknown) => this.#s.logger.warn({ err }, 'reconnect sweep failed'));
          }
        }
      }
    })().catch((err: unknown) => this.#s.logger.debug({ err }, 'status watch ended'));
  }

  #emit<K extends keyof RegistryEvents>(event: K, ...args: RegistryEvents[K]): void {
    try {
      (this.emit as (e: K, ...a: RegistryEvents[K]) => boolean)(event, ...args);
    } catch (err) {
      this.#s.logger.warn({ err, event }, 'registry event listener threw');
    }
  }
}

/** Creates and starts a registry; closes it again if the first sweep fails. */
export async function startRegistry(options: RegistryOptions): Promise<Registry> {
  const registry = new Registry(options);
  try {
    await registry.start();
  } catch (err) {
    await registry.close();
    throw err;
  }
  return registry;
}
