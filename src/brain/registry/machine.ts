import { serviceName, type Bye, type Hello } from '../../protocol/index.js';
import type { SweepEvent } from './events.js';
import {
  planHintChecks,
  tallyHintChecks,
  type CheckResult,
  type Confirmation,
} from './hint-check.js';
import type { ToolInstanceInfo } from './instance.js';
import { LiveMap } from './live-map.js';
import type { ByeCheck, Instant, Output, SweepPlan, SweepTicket } from './outputs.js';
import { SpecTrust } from './spec-trust.js';
import type { RegisteredInstance, RegisteredTool } from './view.js';

/**
 * New instances (or new spec claims) asked for their INFO per sweep at most; a flood of hints
 * waits for later sweeps. Listed instances are pinged every sweep whatever their number.
 */
export const MAX_CONFIRMS_PER_SWEEP = 512;

interface MachineSettings {
  /** Consecutive counted sweeps an instance may miss before it is dropped. */
  readonly maxMissedSweeps: number;
  /** How long a taken bye keeps its instance out (late INFO answers), in ms. */
  readonly tombstoneMs: number;
}

const key = (tool: string, id: string) => `${tool}/${id}`;

/**
 * The registry's state and rules, without I/O (docs/adr/0008): listed instances and their
 * misses, tombstones, the connection epoch, the confirmations under way, and what to believe
 * (docs/adr/0005, docs/adr/0007). Each input returns what follows from it, in order: reports
 * to log and emit, and commands for the shell to run and answer. Time is an argument.
 */
export class RegistryMachine {
  readonly #s: MachineSettings;
  readonly #live = new LiveMap(new SpecTrust());
  /** `tool/id` -> monotonic ms when it expires (forgotten at the end of a later sweep). */
  readonly #tombstones = new Map<string, number>();
  /** Hellos whose instance is being asked for its INFO. */
  readonly #confirming = new Set<string>();
  /** Byes whose instance is being pinged. */
  readonly #checkingBye = new Set<string>();
  #sweeps = 0;
  #connected = true;
  /** Bumped on every disconnect and reconnect. */
  #epoch = 0;
  #closed = false;

  constructor(settings: MachineSettings) {
    this.#s = settings;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** From now on every input is ignored; the map stays as it is. */
  close(): void {
    this.#closed = true;
  }

  /** Names of the tools with a live instance, sorted. */
  toolNames(): string[] {
    return this.#live.names();
  }

  tool(name: string): RegisteredTool | undefined {
    return this.#live.tool(name);
  }

  /** A hello is a hint: ask the instance on its own subject, once at a time. */
  hello(hello: Hello): Output[] {
    const k = key(hello.tool, hello.instance_id);
    if (this.#closed || this.#tombstones.has(k)) return [];
    if (hello.service !== serviceName(hello.tool)) return [{ type: 'hello_ignored', hello }];
    if (this.#confirming.has(k)) return [];
    this.#confirming.add(k);
    return [{ type: 'confirm_hello', hello }];
  }

  /** The answer to `confirm_hello`; undefined when the request failed (nothing changes). */
  helloChecked(hello: Hello, answer: Confirmation | undefined, now: Instant): Output[] {
    this.#confirming.delete(key(hello.tool, hello.instance_id));
    if (this.#closed || !answer) return [];
    if (answer.kind === 'confirmed') return this.#observe(answer.instance, 'hello', now);
    const event = { tool: hello.tool, instanceId: hello.instance_id, reason: answer.reason };
    return [{ type: 'hello_unconfirmed', event, hello }];
  }

  /**
   * An instance not listed yet named itself in a reply, and its own INFO subject confirmed it
   * (ADR 0060): listed as a hello's confirmation would list it.
   */
  replyNamed(info: ToolInstanceInfo, now: Instant): Output[] {
    return this.#observe(info, 'reply', now);
  }

  /** A bye is a hint too: a listed instance is pinged first; an unknown one is kept out. */
  bye(bye: Bye, now: Instant): Output[] {
    if (this.#closed) return [];
    const k = key(bye.tool, bye.instance_id);
    if (!this.#live.has(bye.tool, bye.instance_id)) {
      // not (yet) listed: keep INFO answers still in flight from adding it
      this.#tombstones.set(k, now.mono + this.#s.tombstoneMs);
      return [];
    }
    if (this.#checkingBye.has(k)) return [];
    this.#checkingBye.add(k);
    return [{ type: 'ping_bye', bye }];
  }

  /** The answer to `ping_bye`: an instance that answers stays; otherwise the bye is taken. */
  byeChecked(bye: Bye, answer: ByeCheck, now: Instant): Output[] {
    const k = key(bye.tool, bye.instance_id);
    this.#checkingBye.delete(k);
    if (this.#closed) return [];
    if (answer === 'answered') {
      return [{ type: 'bye_refused', event: { tool: bye.tool, instanceId: bye.instance_id } }];
    }
    this.#tombstones.set(k, now.mono + this.#s.tombstoneMs);
    return this.#live.remove(bye.tool, bye.instance_id, 'bye');
  }

  /** A sweep asks `$SRV.INFO` now; `countMisses` false for a discovery-only sweep. */
  beginSweep(countMisses: boolean, now: Instant): SweepTicket {
    return { seq: ++this.#sweeps, startedAt: now.mono, epoch: this.#epoch, countMisses };
  }

  /** The sweep's answers are in: which instance to ask what, on its own subject. */
  planSweep(
    ticket: SweepTicket,
    answers: { hints: readonly ToolInstanceInfo[]; invalid: readonly string[] },
  ): SweepPlan {
    const fresh = answers.hints.filter((h) => !this.#tombstones.has(key(h.tool, h.id)));
    const known = (tool: string, id: string) => this.#live.specSha(tool, id);
    const plan = planHintChecks(fresh, known, MAX_CONFIRMS_PER_SWEEP);
    return { ...plan, ticket, replies: answers.hints.length, invalid: answers.invalid };
  }

  /** The plan's checks are answered: believe them, charge misses, end the sweep. */
  finishSweep(
    plan: SweepPlan,
    results: readonly CheckResult[],
    now: Instant,
  ): { event: SweepEvent; outputs: Output[] } {
    const { ticket } = plan;
    const checked = tallyHintChecks(plan, results);
    const event: SweepEvent = {
      seq: ticket.seq,
      durationMs: now.mono - ticket.startedAt,
      replies: plan.replies,
      invalid: plan.invalid.length,
      unconfirmed: checked.unconfirmed,
      countedMisses: this.#counts(ticket),
    };
    if (this.#closed) return { event, outputs: [] };
    const outputs: Output[] = [
      ...plan.invalid.map((reason) => ({ type: 'invalid_info' as const, reason })),
      ...checked.reasons.map((reason) => ({ type: 'hint_unconfirmed' as const, reason })),
    ];
    const answered = new Set<string>();
    for (const { tool, id } of checked.alive) {
      answered.add(key(tool, id));
      this.#live.seen(tool, id, now.mono);
    }
    for (const info of checked.confirmed) {
      answered.add(key(info.tool, info.id));
      outputs.push(...this.#observe(info, 'sweep', now));
    }
    if (event.countedMisses) {
      const sweep = { seq: ticket.seq, maxMisses: this.#s.maxMissedSweeps };
      outputs.push(...this.#live.chargeMisses(answered, ticket.startedAt, sweep));
    }
    for (const [k, expires] of this.#tombstones)
      if (expires <= now.mono) this.#tombstones.delete(k);
    outputs.push({ type: 'sweep', event });
    return { event, outputs };
  }

  /** Misses seen while disconnected say nothing about workers. */
  disconnected(): Output[] {
    this.#connected = false;
    this.#epoch++;
    return [];
  }

  /** Back on the bus: look again, without charging misses. */
  reconnected(): Output[] {
    this.#connected = true;
    this.#epoch++;
    return this.#closed ? [] : [{ type: 'discovery_sweep' }];
  }

  /** Misses count only in a sweep that stayed connected, in one epoch, from start to end. */
  #counts(ticket: SweepTicket): boolean {
    return ticket.countMisses && this.#connected && ticket.epoch === this.#epoch && !this.#closed;
  }

  #observe(info: ToolInstanceInfo, source: RegisteredInstance['source'], now: Instant): Output[] {
    if (this.#closed || this.#tombstones.has(key(info.tool, info.id))) return [];
    return this.#live.observe(info, source, now);
  }
}
