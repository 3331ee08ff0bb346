import type { NatsConnection } from '@nats-io/nats-core';
import { SrvPingSchema, readWireJson, serviceName, srvSubject } from '../../protocol/index.js';
import {
  planHintChecks,
  tallyHintChecks,
  type CheckResult,
  type Confirmation,
  type HintCheck,
  type PlannedCheck,
} from './hint-check.js';
import { parseInfoReply, type SpecCache, type ToolInstanceInfo } from './instance.js';
import { requestOne } from './srv-client.js';

/**
 * Asks one instance about itself on `$SRV.INFO.<service>.<id>`. Under least-privilege
 * permissions only the tool's own identity may subscribe there, so this answer, unlike one
 * to the generic `$SRV.INFO` or a hello, speaks for the instance (docs/adr/0007). An answer
 * naming another service or id confirms nothing. Failures of the request (a closed
 * connection) throw.
 */
export async function confirmInfo(
  nc: NatsConnection,
  tool: string,
  id: string,
  timeoutMs: number,
  specs: SpecCache,
): Promise<Confirmation> {
  const data = await requestOne(nc, srvSubject('INFO', serviceName(tool), id), timeoutMs);
  if (data === undefined) return unconfirmed('no answer on its own INFO subject');
  const parsed = parseInfoReply(data, specs);
  if (parsed.kind === 'invalid') return unconfirmed(parsed.reason);
  if (parsed.kind === 'foreign') return unconfirmed('its own subject answered as another service');
  if (parsed.instance.tool !== tool || parsed.instance.id !== id) {
    return unconfirmed(
      `its own subject answered as ${parsed.instance.service}/${parsed.instance.id}`,
    );
  }
  return { kind: 'confirmed', instance: parsed.instance };
}

/**
 * Whether the instance answers `$SRV.PING.<service>.<id>` as itself: the liveness check for
 * an instance already confirmed, cheaper than INFO (no spec in the answer).
 */
export async function confirmPing(
  nc: NatsConnection,
  tool: string,
  id: string,
  timeoutMs: number,
): Promise<boolean> {
  const service = serviceName(tool);
  const data = await requestOne(nc, srvSubject('PING', service, id), timeoutMs);
  if (data === undefined) return false;
  const read = readWireJson(data);
  if ('why' in read) return false;
  const ping = SrvPingSchema.safeParse(read.value);
  return ping.success && ping.data.name === service && ping.data.id === id;
}

function unconfirmed(reason: string): Confirmation {
  return { kind: 'unconfirmed', reason };
}

/** Asks one instance the question a plan chose for it, on its own subject. */
async function runCheck(
  nc: NatsConnection,
  check: PlannedCheck,
  timeoutMs: number,
  specs: SpecCache,
): Promise<CheckResult> {
  const { tool, id } = check;
  return check.verb === 'PING'
    ? { verb: 'PING', check, alive: await confirmPing(nc, tool, id, timeoutMs) }
    : { verb: 'INFO', check, confirmation: await confirmInfo(nc, tool, id, timeoutMs, specs) };
}

/** Runs every check of a plan at once; a failed request (closed connection) rejects. */
export function runChecks(
  nc: NatsConnection,
  checks: readonly PlannedCheck[],
  timeoutMs: number,
  specs: SpecCache,
): Promise<CheckResult[]> {
  return Promise.all(checks.map((c) => runCheck(nc, c, timeoutMs, specs)));
}

/**
 * Turns answers to a generic `$SRV.INFO`, which anyone allowed to subscribe to it can send,
 * into facts for a caller that knows no instances yet (`caesar legion list`): each instance
 * named, at most `maxInstances`, is asked on its own subject, all at once.
 */
export async function checkHints(
  nc: NatsConnection,
  hints: readonly ToolInstanceInfo[],
  o: { timeoutMs: number; specs: SpecCache; maxInstances: number },
): Promise<HintCheck> {
  const plan = planHintChecks(hints, () => undefined, o.maxInstances);
  return tallyHintChecks(plan, await runChecks(nc, plan.checks, o.timeoutMs, o.specs));
}
