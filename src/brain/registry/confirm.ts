import type { NatsConnection } from '@nats-io/nats-core';
import { SrvPingSchema, serviceName, srvSubject } from '../../protocol/index.js';
import { parseInfoReply, type SpecCache, type ToolInstanceInfo } from './instance.js';
import { compareVersions } from './semver.js';
import { requestOne } from './srv-client.js';

const decoder = new TextDecoder();

/** What an instance's own `$SRV` subject said about it. */
export type Confirmation =
  { kind: 'confirmed'; instance: ToolInstanceInfo } | { kind: 'unconfirmed'; reason: string };

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
  let raw: unknown;
  try {
    raw = JSON.parse(decoder.decode(data));
  } catch {
    return false;
  }
  const ping = SrvPingSchema.safeParse(raw);
  return ping.success && ping.data.name === service && ping.data.id === id;
}

function unconfirmed(reason: string): Confirmation {
  return { kind: 'unconfirmed', reason };
}

/** What the instances' own subjects said about the hints of one sweep. */
export interface HintCheck {
  /**
   * Instances that confirmed themselves on `$SRV.INFO.<service>.<id>`, spec included; by
   * tool, newest version first, so that among instances found together the newest spec is
   * the one first trusted (the order must not depend on which answer came first).
   */
  confirmed: ToolInstanceInfo[];
  /** `tool/id` of known instances that answered their own `$SRV.PING.<service>.<id>`. */
  alive: string[];
  /** Hints (distinct instance and spec claims) that their instance did not confirm. */
  unconfirmed: number;
  /** Why, one line per instance, for debug logs. */
  reasons: string[];
}

export interface HintCheckOptions {
  timeoutMs: number;
  specs: SpecCache;
  /** The spec sha the registry holds for an instance, or undefined when it is new. */
  knownSha(tool: string, id: string): string | undefined;
  /** Instances asked at most per sweep; the rest wait for a later sweep. */
  maxInstances: number;
}

/**
 * Turns the answers to a generic `$SRV.INFO` sweep, which anyone allowed to subscribe to it
 * can send, into facts: each instance named is asked on its own subject, all at once. A known
 * instance claiming the spec the registry holds gets a PING (is it alive?); a new one, or a
 * claim of another spec, gets an INFO, and only what that INFO says is believed.
 */
export async function checkHints(
  nc: NatsConnection,
  hints: readonly ToolInstanceInfo[],
  o: HintCheckOptions,
): Promise<HintCheck> {
  const byKey = new Map<string, { tool: string; id: string; shas: Set<string> }>();
  for (const h of hints) {
    const k = `${h.tool}/${h.id}`;
    const claim = byKey.get(k) ?? { tool: h.tool, id: h.id, shas: new Set<string>() };
    claim.shas.add(h.specSha256);
    byKey.set(k, claim);
  }
  const out: HintCheck = { confirmed: [], alive: [], unconfirmed: 0, reasons: [] };
  const claims = [...byKey.values()];
  for (const skipped of claims.splice(o.maxInstances)) out.unconfirmed += skipped.shas.size;
  await Promise.all(
    claims.map(async ({ tool, id, shas }) => {
      const known = o.knownSha(tool, id);
      if (known !== undefined && shas.size === 1 && shas.has(known)) {
        if (await confirmPing(nc, tool, id, o.timeoutMs)) out.alive.push(`${tool}/${id}`);
        else out.unconfirmed += 1;
        return;
      }
      const c = await confirmInfo(nc, tool, id, o.timeoutMs, o.specs);
      if (c.kind === 'unconfirmed') {
        out.unconfirmed += shas.size;
        out.reasons.push(`${tool}/${id}: ${c.reason}`);
        return;
      }
      out.confirmed.push(c.instance);
      for (const sha of shas) if (sha !== c.instance.specSha256) out.unconfirmed += 1;
    }),
  );
  out.confirmed.sort(
    (a, b) =>
      (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0) ||
      compareVersions(b.version, a.version) ||
      (a.id < b.id ? -1 : 1),
  );
  return out;
}
