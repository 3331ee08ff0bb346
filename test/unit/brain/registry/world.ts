import { z } from 'zod';
import type { SweepEvent } from '../../../../src/brain/registry/events.js';
import type { CheckResult, PlannedCheck } from '../../../../src/brain/registry/hint-check.js';
import type { ToolInstanceInfo } from '../../../../src/brain/registry/instance.js';
import { RegistryMachine } from '../../../../src/brain/registry/machine.js';
import type { Instant, Output, SweepPlan } from '../../../../src/brain/registry/outputs.js';
import { defineTool } from '../../../../src/legion/index.js';
import { serviceName, type Bye, type Hello } from '../../../../src/protocol/index.js';

/**
 * Fixtures for the registry's state machine: no server, no clock. Time is whatever a test
 * says (`at(ms)`), and `World` plays the bus: which instances answer on their own subjects.
 */

export const TOMBSTONE_MS = 10_000;

export function machine(maxMissedSweeps = 2): RegistryMachine {
  return new RegistryMachine({ maxMissedSweeps, tombstoneMs: TOMBSTONE_MS });
}

/** A moment: monotonic `ms`, and a wall clock far from it so that mix-ups show. */
export const at = (ms: number): Instant => ({ mono: ms, wall: 1_700_000_000_000 + ms });

export interface SpecOptions {
  tool?: string;
  version?: string;
  hitl?: 'autonomous' | 'confirm';
  destructive?: boolean;
  /** A looser input schema than the default. */
  loose?: boolean;
  host?: string;
  /** @default false */
  readOnly?: boolean;
  /** @default false */
  openWorld?: boolean;
  /** @default the SDK's (trusted: the tool is closed-world and offline unless openWorld) */
  outputTrust?: 'trusted' | 'untrusted';
  /** @default false */
  readsPrivate?: boolean;
}

/** One instance as its own `$SRV.INFO.<service>.<id>` describes it. */
export function instance(id: string, o: SpecOptions = {}): ToolInstanceInfo {
  const { spec, specSha256 } = defineTool({
    name: o.tool ?? 'lock',
    version: o.version ?? '1.0.0',
    description: 'Test tool: unlocks a door.',
    annotations: {
      readOnly: o.readOnly ?? false,
      destructive: o.destructive ?? false,
      idempotent: true,
      openWorld: o.openWorld ?? false,
    },
    executionLocality: 'local',
    resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
    hitl: o.hitl ?? 'autonomous',
    ...(o.outputTrust === undefined ? {} : { outputTrust: o.outputTrust }),
    readsPrivate: o.readsPrivate ?? false,
    input: o.loose
      ? z.looseObject({ door: z.string() })
      : z.strictObject({ door: z.enum(['front']) }),
    output: z.object({ ok: z.boolean() }),
    handler: () => ({ ok: true }),
  });
  const tool = spec.name;
  const host = o.host ?? `host-${id}`;
  return { id, tool, service: serviceName(tool), host, version: spec.version, specSha256, spec };
}

export const hello = (i: ToolInstanceInfo): Hello => ({
  v: 1,
  tool: i.tool,
  service: i.service,
  instance_id: i.id,
  host: i.host,
  version: i.version,
  spec_sha256: i.specSha256,
});

export const bye = (i: ToolInstanceInfo): Bye => ({
  v: 1,
  tool: i.tool,
  instance_id: i.id,
  host: i.host,
});

/** The `type`s of a machine's outputs, in order. */
export const types = (outputs: readonly Output[]) => outputs.map((o) => o.type);

/** The payloads of the outputs of one type. */
export function reports<T extends Output['type']>(
  outputs: readonly Output[],
  type: T,
): Extract<Output, { type: T }>[] {
  return outputs.filter((o): o is Extract<Output, { type: T }> => o.type === type);
}

/** Ids of the listed instances of `tool`, in the view's order; [] when it is not listed. */
export const listed = (m: RegistryMachine, tool = 'lock') =>
  m.tool(tool)?.instances.map((i) => i.id) ?? [];

/**
 * The bus as the machine's checks find it. `live` answer their own PING and INFO (the INFO
 * saying what `live` holds); everyone else meets no responders.
 */
export class World {
  readonly live = new Map<string, ToolInstanceInfo>();

  up(...instances: ToolInstanceInfo[]): this {
    for (const i of instances) this.live.set(`${i.tool}/${i.id}`, i);
    return this;
  }

  down(...instances: ToolInstanceInfo[]): this {
    for (const i of instances) this.live.delete(`${i.tool}/${i.id}`);
    return this;
  }

  answer(check: PlannedCheck): CheckResult {
    const own = this.live.get(`${check.tool}/${check.id}`);
    if (check.verb === 'PING') return { verb: 'PING', check, alive: own !== undefined };
    return {
      verb: 'INFO',
      check,
      confirmation: own
        ? { kind: 'confirmed', instance: own }
        : { kind: 'unconfirmed', reason: 'no answer on its own INFO subject' },
    };
  }
}

/** Lists `info` the way a worker's start does: hello, then its own INFO answers. */
export function admit(m: RegistryMachine, info: ToolInstanceInfo, ms: number): Output[] {
  const h = hello(info);
  const asked = m.hello(h);
  if (types(asked).join() !== 'confirm_hello')
    throw new Error(`hello not asked: ${types(asked).join()}`);
  return m.helloChecked(h, { kind: 'confirmed', instance: info }, at(ms));
}

export interface SweepRun {
  plan: SweepPlan;
  event: SweepEvent;
  outputs: Output[];
}

/**
 * One sweep from `start` to `end` (default start + 100): the generic `$SRV.INFO` is answered
 * with `hints` (default: every live instance, honestly), each planned check by `world`.
 * `during` runs between the request and the answers (a disconnect, a hello).
 */
export function sweep(
  m: RegistryMachine,
  world: World,
  o: {
    start: number;
    end?: number;
    hints?: ToolInstanceInfo[];
    invalid?: string[];
    countMisses?: boolean;
    during?: () => void;
  },
): SweepRun {
  const ticket = m.beginSweep(o.countMisses ?? true, at(o.start));
  o.during?.();
  const hints = o.hints ?? [...world.live.values()];
  const plan = m.planSweep(ticket, { hints, invalid: o.invalid ?? [] });
  const results = plan.checks.map((c) => world.answer(c));
  return { plan, ...m.finishSweep(plan, results, at(o.end ?? o.start + 100)) };
}
