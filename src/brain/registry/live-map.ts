import type { RemovalReason } from './events.js';
import type { ToolInstanceInfo } from './instance.js';
import type { Instant, Report } from './outputs.js';
import type { SpecTrust } from './spec-trust.js';
import { buildToolView, type RegisteredInstance, type RegisteredTool } from './view.js';

interface Entry {
  instance: RegisteredInstance;
  /** Monotonic ms of the last confirmation (INFO or PING on its own subject). */
  lastSeen: number;
  /** Counted sweeps missed in a row. */
  misses: number;
}

interface ToolState {
  entries: Map<string, Entry>;
  /** The snapshot handed out; rebuilt after any change to the tool's instances. */
  view?: RegisteredTool;
}

/**
 * The live instances of each tool, with their liveness, and the tool views built from them.
 * Every change comes back as reports; a tool exists while it has an instance. Part of
 * `RegistryMachine`: no I/O, time is an argument.
 */
export class LiveMap {
  readonly #tools = new Map<string, ToolState>();
  readonly #trust: SpecTrust;

  constructor(trust: SpecTrust) {
    this.#trust = trust;
  }

  /** Names of tools with a live instance, sorted. */
  names(): string[] {
    return [...this.#tools.keys()].sort();
  }

  tool(name: string): RegisteredTool | undefined {
    const state = this.#tools.get(name);
    if (!state) return undefined;
    return (state.view ??= buildToolView(
      name,
      [...state.entries.values()].map((e) => e.instance),
      this.#trust,
    ));
  }

  has(tool: string, id: string): boolean {
    return this.#entry(tool, id) !== undefined;
  }

  /** The spec sha256 the registry holds for an instance; undefined when it is not listed. */
  specSha(tool: string, id: string): string | undefined {
    return this.#entry(tool, id)?.instance.specSha256;
  }

  /** A listed instance answered on its own subject: alive, no misses. */
  seen(tool: string, id: string, now: number): void {
    const entry = this.#entry(tool, id);
    if (!entry) return;
    entry.lastSeen = now;
    entry.misses = 0;
  }

  /**
   * What an instance confirmed on its own subject: lists it if new (its spec passing the
   * trust rules), else marks it seen. A listed instance keeps the spec it first confirmed
   * (ids are never reused, so a real worker never changes its spec under one id).
   */
  observe(info: ToolInstanceInfo, source: RegisteredInstance['source'], now: Instant): Report[] {
    const was = this.#entry(info.tool, info.id)?.instance;
    if (!was) return this.#add(info, source, now);
    this.seen(info.tool, info.id, now.mono);
    if (was.specSha256 === info.specSha256) return [];
    const change = this.#trust.instanceChanged(was, info);
    return change ? [{ type: 'spec_changed', event: change }] : [];
  }

  #add(info: ToolInstanceInfo, source: RegisteredInstance['source'], now: Instant): Report[] {
    const instance: RegisteredInstance = Object.freeze({ ...info, addedAt: now.wall, source });
    const state = this.#tools.get(info.tool) ?? { entries: new Map<string, Entry>() };
    this.#tools.set(info.tool, state);
    state.entries.set(info.id, { instance, lastSeen: now.mono, misses: 0 });
    state.view = undefined;
    const out: Report[] = [{ type: 'instance_added', event: { tool: info.tool, instance } }];
    const change = this.#trust.admitNew(info);
    if (change) out.push({ type: 'spec_changed', event: change });
    return out;
  }

  #entry(tool: string, id: string): Entry | undefined {
    return this.#tools.get(tool)?.entries.get(id);
  }

  remove(tool: string, id: string, reason: RemovalReason, sweep?: number): Report[] {
    const state = this.#tools.get(tool);
    const entry = state?.entries.get(id);
    if (!state || !entry) return [];
    state.entries.delete(id);
    state.view = undefined;
    const toolRemoved = state.entries.size === 0;
    if (toolRemoved) this.#tools.delete(tool);
    const event = { tool, instance: entry.instance, reason, toolRemoved };
    return [{ type: 'instance_removed', event: sweep === undefined ? event : { ...event, sweep } }];
  }

  /**
   * A counted sweep that began at `startedAt` ended: each listed instance that neither
   * answered it (`answered`, keys `tool/id`) nor was heard from since it began (it could not
   * have answered) misses once, and goes at `maxMisses` misses in a row.
   */
  chargeMisses(
    answered: ReadonlySet<string>,
    startedAt: number,
    sweep: { seq: number; maxMisses: number },
  ): Report[] {
    const out: Report[] = [];
    for (const [tool, state] of [...this.#tools]) {
      for (const [id, entry] of [...state.entries]) {
        if (answered.has(`${tool}/${id}`) || entry.lastSeen >= startedAt) continue;
        entry.misses++;
        if (entry.misses >= sweep.maxMisses) {
          out.push(...this.remove(tool, id, 'missed_sweeps', sweep.seq));
        }
      }
    }
    return out;
  }
}
