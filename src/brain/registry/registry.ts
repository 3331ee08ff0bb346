import { EventEmitter } from 'node:events';
import type { Subscription } from '@nats-io/nats-core';
import type { Bye, Hello } from '../../protocol/index.js';
import { listenForAnnouncements } from './announcements.js';
import { confirmInfo, confirmPing, runChecks } from './confirm.js';
import { sweepInfo, type AwaitedTools } from './discovery.js';
import type { RegistryEvents, SweepEvent } from './events.js';
import type { Confirmation } from './hint-check.js';
import { SpecCache } from './instance.js';
import { RegistryMachine } from './machine.js';
import {
  normaliseRegistryOptions,
  type RegistryOptions,
  type RegistrySettings,
} from './options.js';
import type { ByeCheck, Instant, Output } from './outputs.js';
import { logReport } from './report.js';
import type { RegisteredInstance, RegisteredTool } from './view.js';
import { errorClass } from '../../errors/index.js';

/** `start()` or `sweep()` on a registry that was closed. */
/**
 * The first sweep (at start, before the brain says ready) ends once this long passes without
 * a new INFO reply, instead of waiting out the whole window: with tools running, it saved
 * the brain's start about the window (1 s) minus this. Sooner still once every expected tool
 * answered (`expectedTools`): under `caesar up` the workers are usually serving before the
 * brain sweeps, and this wait was 300 of the brain's last 580 ms to ready. Nothing is
 * registered yet, so an instance that answers later misses no sweep; it is listed by the
 * next one (or by its own announcement). Later sweeps keep the full window, since a miss
 * there counts.
 */
const FIRST_SWEEP_STALL_MS = 300;
/** Unlisted instances named by replies, asked about at once at most (ADR 0060). */
const MAX_REPLY_CONFIRMS = 64;
/** Listed instances of one tool pinged when a no-responders status is in doubt. */
const MAX_PINGED_FOR_REPLY = 16;

export const RegistryClosedError = errorClass('registry_closed', () => ({ params: {} }));

const now = (): Instant => ({ mono: performance.now(), wall: Date.now() });
/** The instances of a tool nobody serves. */
const NONE: readonly RegisteredInstance[] = Object.freeze([]);

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
 *
 * This class is the I/O around `RegistryMachine`, which holds the state and the rules
 * (docs/adr/0008-registry-state-machine.md): it feeds the machine what the bus says and the
 * time, runs the requests the machine asks for, and logs and emits what it reports.
 */
export class Registry extends EventEmitter<RegistryEvents> implements AsyncDisposable {
  readonly #s: RegistrySettings;
  readonly #m: RegistryMachine;
  readonly #specs = new SpecCache();
  #subs: Subscription[] = [];
  #status: AsyncIterable<unknown> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<SweepEvent> | undefined;
  #started: Promise<void> | undefined;
  /** Instances named by replies being asked on their own INFO subject, by `tool/id`. */
  readonly #replyConfirms = new Map<string, Promise<RegisteredInstance | undefined>>();
  /** Hellos being checked on their instance's own INFO subject. */
  readonly #helloChecks = new Set<Promise<void>>();

  constructor(options: RegistryOptions) {
    super();
    this.#s = normaliseRegistryOptions(options);
    const { maxMissedSweeps, tombstoneMs } = this.#s;
    this.#m = new RegistryMachine({ maxMissedSweeps, tombstoneMs });
  }

  /** Listens for announcements, runs the first sweep (awaited), then sweeps periodically. */
  start(): Promise<void> {
    if (this.#m.closed) return Promise.reject(new RegistryClosedError());
    return (this.#started ??= (async () => {
      const { nc, logger } = this.#s;
      this.#subs = listenForAnnouncements(
        nc,
        {
          hello: (h) => this.#apply(this.#m.hello(h)),
          bye: (b) => this.#apply(this.#m.bye(b, now())),
        },
        logger,
      );
      this.#watchConnection();
      await nc.flush();
      const { expectedTools: tools, firstSweepGraceMs: graceMs } = this.#s;
      await this.#sweepOnce(FIRST_SWEEP_STALL_MS, { tools, graceMs });
      // An instance that started listening after the sweep's INFO went out said hello during
      // it: its check (one INFO round trip, bounded by infoTimeoutMs) ends before the brain
      // says ready, so what the worker serves is listed by then.
      await Promise.allSettled(this.#helloChecks);
      this.#schedule(this.#s.sweepIntervalMs);
    })());
  }

  /** Every tool with a live instance, sorted by name. Snapshots: they never change. */
  tools(): RegisteredTool[] {
    return this.#m.toolNames().flatMap((name) => {
      const t = this.#m.tool(name);
      return t ? [t] : [];
    });
  }

  /** One tool, or undefined when no instance of it is live. */
  tool(name: string): RegisteredTool | undefined {
    return this.#m.tool(name);
  }

  /**
   * The listed instances of `tool`: the registry's own snapshot, one array per change, never
   * changed in place (the dispatcher keys its grant keys on it, ADR 0108).
   */
  instances(tool: string): readonly RegisteredInstance[] {
    return this.#m.tool(tool)?.instances ?? NONE;
  }

  /** Instance `id` of `tool`, when it is listed. */
  instance(tool: string, id: string): RegisteredInstance | undefined {
    return this.#m.tool(tool)?.instances.find((i) => i.id === id);
  }

  /**
   * An instance named in a reply that the registry does not list (it started a moment ago, or
   * sweeps missed it): asked on its own `$SRV.INFO` subject, as a hello's instance is, and
   * listed when it confirms (ADR 0060). Resolves with it, or undefined. One question per
   * instance at a time, at most 64 at once (more resolve undefined at once).
   */
  confirmInstance(tool: string, id: string): Promise<RegisteredInstance | undefined> {
    const listed = this.instance(tool, id);
    if (listed !== undefined || this.#m.closed) return Promise.resolve(listed);
    const k = `${tool}/${id}`;
    const asking = this.#replyConfirms.get(k);
    if (asking !== undefined) return asking;
    if (this.#replyConfirms.size >= MAX_REPLY_CONFIRMS) return Promise.resolve(undefined);
    const { nc, logger, infoTimeoutMs } = this.#s;
    const confirm = (async () => {
      try {
        const answer = await confirmInfo(nc, tool, id, infoTimeoutMs, this.#specs);
        if (answer.kind === 'confirmed') this.#apply(this.#m.replyNamed(answer.instance, now()));
      } catch (err) {
        // an id no subject can carry, or a closed connection: not confirmed
        logger.debug({ err, tool, instanceId: id }, 'INFO request for a reply failed');
      }
      return this.instance(tool, id);
    })().finally(() => this.#replyConfirms.delete(k));
    this.#replyConfirms.set(k, confirm);
    return confirm;
  }

  /**
   * Whether some listed instance of `tool` (at most 16 asked) answers its own `$SRV.PING`
   * now: when one does, a no-responders status for a call to it did not come from the server
   * (ADR 0060). Resolves at the first answer.
   */
  anyAnswers(tool: string): Promise<boolean> {
    const { nc, infoTimeoutMs } = this.#s;
    const ids = (this.#m.tool(tool)?.instances ?? []).slice(0, MAX_PINGED_FOR_REPLY);
    return new Promise((resolve) => {
      let left = ids.length;
      if (left === 0) resolve(false);
      const done = (alive: boolean) => (alive ? resolve(true) : --left === 0 && resolve(false));
      for (const { id } of ids) {
        confirmPing(nc, tool, id, infoTimeoutMs).then(done, () => done(false));
      }
    });
  }

  /** Sweeps now (the timer also calls this); joins a sweep already running. */
  sweep(): Promise<SweepEvent> {
    return this.#sweepOnce(undefined);
  }

  #sweepOnce(stallMs: number | undefined, awaited?: AwaitedTools): Promise<SweepEvent> {
    if (this.#m.closed) return Promise.reject(new RegistryClosedError());
    return (this.#sweeping ??= this.#runSweep(true, stallMs, awaited).finally(() => {
      this.#sweeping = undefined;
    }));
  }

  /** Stops the timer and the subscriptions. The registry keeps its last map. */
  async close(): Promise<void> {
    if (this.#m.closed) return;
    this.#m.close();
    clearTimeout(this.#timer);
    (this.#status as { stop?: () => void } | undefined)?.stop?.();
    await Promise.allSettled(this.#subs.map((s) => s.drain()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** `$SRV.INFO` to all, then each answer checked on its instance's own subject, at once. */
  async #runSweep(
    countMisses: boolean,
    stallMs?: number,
    awaited?: AwaitedTools,
  ): Promise<SweepEvent> {
    const { nc, sweepWindowMs, infoTimeoutMs } = this.#s;
    const ticket = this.#m.beginSweep(countMisses, now());
    const { instances: hints, invalid } = await sweepInfo(
      nc,
      sweepWindowMs,
      this.#specs,
      stallMs === undefined ? undefined : Math.min(stallMs, sweepWindowMs),
      awaited,
    );
    const plan = this.#m.planSweep(ticket, { hints, invalid });
    const results = await runChecks(nc, plan.checks, infoTimeoutMs, this.#specs);
    const { event, outputs } = this.#m.finishSweep(plan, results, now());
    this.#apply(outputs);
    return event;
  }

  /** Carries out the machine's commands and reports, in order. */
  #apply(outputs: readonly Output[]): void {
    for (const o of outputs) {
      if (o.type === 'confirm_hello') this.#checkHello(o.hello);
      else if (o.type === 'ping_bye') void this.#pingBye(o.bye);
      else if (o.type === 'discovery_sweep') this.#discoverySweep();
      else {
        logReport(this.#s.logger, o);
        if ('event' in o) this.#emit(o.type, o.event);
      }
    }
  }

  #checkHello(hello: Hello): void {
    const check = this.#confirmHello(hello).finally(() => this.#helloChecks.delete(check));
    this.#helloChecks.add(check);
  }

  /** A hello: read the instance's INFO from its own subject. */
  async #confirmHello(hello: Hello): Promise<void> {
    const { nc, logger, infoTimeoutMs } = this.#s;
    let answer: Confirmation | undefined;
    try {
      answer = await confirmInfo(nc, hello.tool, hello.instance_id, infoTimeoutMs, this.#specs);
    } catch (err) {
      if (!this.#m.closed) logger.warn({ err, hello }, 'INFO request after hello failed');
    }
    this.#apply(this.#m.helloChecked(hello, answer, now()));
  }

  /**
   * A bye for a listed instance: its own `$SRV.PING`. A worker closes discovery before it
   * says bye, so a real goodbye meets no responders and goes in one round trip.
   */
  async #pingBye(bye: Bye): Promise<void> {
    const { nc, logger, infoTimeoutMs } = this.#s;
    let answer: ByeCheck;
    try {
      const alive = await confirmPing(nc, bye.tool, bye.instance_id, infoTimeoutMs);
      answer = alive ? 'answered' : 'silent';
    } catch (err) {
      answer = 'failed';
      if (!this.#m.closed) logger.warn({ err, bye }, 'PING after bye failed; taking the bye');
    }
    this.#apply(this.#m.byeChecked(bye, answer, now()));
  }

  /** After a reconnect: a sweep that charges no misses, unless one is running already. */
  #discoverySweep(): void {
    if (this.#sweeping) return;
    const sweep = this.#runSweep(false).finally(() => {
      this.#sweeping = undefined;
    });
    this.#sweeping = sweep;
    sweep.catch((err: unknown) => this.#s.logger.warn({ err }, 'reconnect sweep failed'));
  }

  /** Fixed rate, never overlapping: the next sweep is due an interval after this one began. */
  #schedule(delayMs: number): void {
    if (this.#m.closed) return;
    this.#timer = setTimeout(() => {
      const started = performance.now();
      void this.sweep()
        .catch((err: unknown) => {
          if (!this.#m.closed) this.#s.logger.warn({ err }, 'registry sweep failed');
        })
        .finally(() => {
          const spent = performance.now() - started;
          this.#schedule(Math.max(0, this.#s.sweepIntervalMs - spent));
        });
    }, delayMs);
    this.#timer.unref();
  }

  /** Tells the machine about disconnects and reconnects. */
  #watchConnection(): void {
    const status = this.#s.nc.status();
    this.#status = status;
    void (async () => {
      for await (const s of status) {
        if (s.type === 'disconnect') this.#apply(this.#m.disconnected());
        else if (s.type === 'reconnect') this.#apply(this.#m.reconnected());
      }
    })().catch((err: unknown) => this.#s.logger.debug({ err }, 'status watch ended'));
  }

  /** Emits one event; a listener that throws is logged, never thrown into the registry. */
  #emit(event: keyof RegistryEvents, payload: unknown): void {
    try {
      (this.emit as (e: string, p: unknown) => boolean)(event, payload);
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
