import type { ToolInstanceInfo } from './instance.js';
import { compareVersions } from './semver.js';

/**
 * Which question a hint about an instance earns, on the instance's own `$SRV` subject
 * (docs/adr/0007): a known instance repeating the spec the registry holds is asked whether
 * it is alive (`PING`); a new instance, or a claim of another spec, is asked what it is
 * (`INFO`), and only that answer is believed.
 */
export interface PlannedCheck {
  readonly verb: 'PING' | 'INFO';
  readonly tool: string;
  readonly id: string;
  /** The distinct spec sha256s the hints claimed for this instance. */
  readonly claims: ReadonlySet<string>;
}

/** The checks of one batch of hints: every listed instance, at most `max` new ones. */
export interface HintCheckPlan {
  readonly checks: readonly PlannedCheck[];
  /** Claims (instance and spec) past the cap: counted as unconfirmed, not asked. */
  readonly skipped: number;
}

/** What an instance's own `$SRV.INFO.<service>.<id>` subject said about it. */
export type Confirmation =
  { kind: 'confirmed'; instance: ToolInstanceInfo } | { kind: 'unconfirmed'; reason: string };

/** The answer to one planned check. */
export type CheckResult =
  | { readonly verb: 'PING'; readonly check: PlannedCheck; readonly alive: boolean }
  | { readonly verb: 'INFO'; readonly check: PlannedCheck; readonly confirmation: Confirmation };

/** What the instances' own subjects said about a batch of hints. */
export interface HintCheck {
  /**
   * Instances that confirmed themselves on `$SRV.INFO.<service>.<id>`, spec included; by
   * tool, newest version first, so that among instances found together the newest spec is
   * the one first trusted (the order must not depend on which answer came first).
   */
  confirmed: ToolInstanceInfo[];
  /** Known instances that answered their own `$SRV.PING.<service>.<id>`. */
  alive: { tool: string; id: string }[];
  /** Hints (distinct instance and spec claims) that their instance did not confirm. */
  unconfirmed: number;
  /** Why, one line per instance, for debug logs. */
  reasons: string[];
}

/**
 * Plans the checks for `hints` (answers to a generic `$SRV.INFO`, which anyone allowed to
 * subscribe to it can send): one per distinct instance, in the order first named. At most
 * `max` INFO checks (new instances, new claims): a flood of hints waits for later sweeps. A
 * listed instance repeating its spec is always pinged: those are bounded by the live map, and
 * one left unasked would be charged a miss it never had (200 tools x 5 instances lost a
 * quarter of them every sweep; docs/benchmarks.md, "Cost as work grows"). `knownSha` gives
 * the spec the registry holds for an instance, undefined when new.
 */
export function planHintChecks(
  hints: readonly ToolInstanceInfo[],
  knownSha: (tool: string, id: string) => string | undefined,
  max: number,
): HintCheckPlan {
  const byKey = new Map<string, { tool: string; id: string; claims: Set<string> }>();
  for (const h of hints) {
    const k = `${h.tool}/${h.id}`;
    const claim = byKey.get(k) ?? { tool: h.tool, id: h.id, claims: new Set<string>() };
    claim.claims.add(h.specSha256);
    byKey.set(k, claim);
  }
  const checks: PlannedCheck[] = [];
  let asked = 0;
  let skipped = 0;
  for (const { tool, id, claims: shas } of byKey.values()) {
    const known = knownSha(tool, id);
    if (known !== undefined && shas.size === 1 && shas.has(known)) {
      checks.push({ verb: 'PING', tool, id, claims: shas });
    } else if (asked < max) {
      asked += 1;
      checks.push({ verb: 'INFO', tool, id, claims: shas });
    } else {
      skipped += shas.size;
    }
  }
  return { checks, skipped };
}

/** Sums up the answers to a plan's checks: what is confirmed, alive, and how much is not. */
export function tallyHintChecks(plan: HintCheckPlan, results: readonly CheckResult[]): HintCheck {
  const out: HintCheck = { confirmed: [], alive: [], unconfirmed: plan.skipped, reasons: [] };
  for (const r of results) {
    const { tool, id, claims } = r.check;
    if (r.verb === 'PING') {
      if (r.alive) out.alive.push({ tool, id });
      else out.unconfirmed += 1;
    } else if (r.confirmation.kind === 'unconfirmed') {
      out.unconfirmed += claims.size;
      out.reasons.push(`${tool}/${id}: ${r.confirmation.reason}`);
    } else {
      const { instance } = r.confirmation;
      out.confirmed.push(instance);
      for (const sha of claims) if (sha !== instance.specSha256) out.unconfirmed += 1;
    }
  }
  out.confirmed.sort(
    (a, b) =>
      (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0) ||
      compareVersions(b.version, a.version) ||
      (a.id < b.id ? -1 : 1),
  );
  return out;
}
