import { servedName } from '../../protocol/index.js';
import type { Capability, CapabilityReport, MissingCapability, ToolStep } from '../agent/index.js';
import type { IntentCapability } from '../intents/index.js';
import { preflightView, type PreflightResult } from '../preflight/index.js';
import { policyOffer, type OfferPolicy } from './policy-offer.js';
import { restartStep, startStep, type WorkerLaunch } from './worker-launch.js';

export interface CapabilitiesOptions {
  /** What the local intent rules can do; an IntentSet is one. */
  readonly intents: { capabilities(): readonly IntentCapability[] };
  /** The live tools; a Registry is one. */
  readonly registry: { tools(): readonly { readonly name: string }[] };
  readonly policy: OfferPolicy;
  /** Preflight answers, kept for a while; a PreflightCache is one (share the brain's). */
  readonly preflight: { get(tool: string): Promise<PreflightResult> };
  readonly launch: WorkerLaunch;
  /** The catalog's planned stubs (ADR 0090): named in the report, never offered. @default none */
  readonly planned?: readonly { readonly name: string; readonly purpose: string }[];
}

/** Why one tool cannot be used now, and the steps that enable it (in the order to take). */
interface ToolGap {
  readonly tool: string;
  readonly problems: readonly Problem[];
}

interface Problem {
  readonly kind: ToolStep['kind'];
  readonly why: string;
  readonly step: string;
  /** The step in a few words for a chat reply, no command or env var: `start web_search`. */
  readonly brief: string;
}

/**
 * What the local intent rules can do right now, judged tool by tool: a capability is listed
 * as working only when every tool its rules call is discovered (a worker serves it), allowed
 * by the policy as enforced (some call of it could be allowed; see {@link policyOffer}) and
 * `ready` by its preflight. Each other capability comes with the step that enables each of
 * its tools: start it (the exact command), grant it (the policy file and a minimal rule), or
 * configure it (the env var and caesar.yaml key its preflight names).
 */
export class Capabilities {
  readonly #o: CapabilitiesOptions;

  constructor(options: CapabilitiesOptions) {
    this.#o = options;
  }

  /** Never rejects: a tool whose preflight cannot be read counts as not ready. */
  async report(): Promise<CapabilityReport> {
    const wanted = this.#o.intents.capabilities();
    const tools = [...new Set(wanted.flatMap((c) => c.tools))];
    const gaps = new Map<string, ToolGap>();
    await Promise.all(tools.map(async (t) => gaps.set(t, await this.#gap(t))));
    const ready: Capability[] = [];
    const missing: MissingCapability[] = [];
    for (const c of wanted) {
      const open = c.tools.map((t) => gaps.get(t)!).filter((g) => g.problems.length > 0);
      const said = { what: c.what, ...(c.example === undefined ? {} : { example: c.example }) };
      if (open.length === 0) ready.push(said);
      else missing.push({ ...said, step: open[0]!.problems[0]!.brief, steps: steps(open) });
    }
    const live = new Set(this.#o.registry.tools().map((t) => t.name));
    const planned = (this.#o.planned ?? [])
      .filter((p) => !live.has(p.name))
      .map((p) => ({ tool: p.name, purpose: p.purpose }));
    return planned.length === 0 ? { ready, missing } : { ready, missing, planned };
  }

  /** What keeps `tool` from working now, each with its step: `web_search is not running; start it: …`. */
  async toolSteps(tool: string): Promise<ToolStep[]> {
    const gap = await this.#gap(tool);
    return gap.problems.map((p) => ({ kind: p.kind, text: `${tool} ${p.why}; ${p.step}` }));
  }

  async #gap(called: string): Promise<ToolGap> {
    const problems: Problem[] = [];
    const live = new Set(this.#o.registry.tools().map((t) => t.name));
    // a Home Assistant callable under whichever of its names is served (ADR 0093)
    const tool = servedName(called, (name) => live.has(name));
    const running = live.has(tool);
    if (!running) {
      problems.push({
        kind: 'start',
        why: 'is not running',
        step: startStep(this.#o.launch, tool),
        brief: `start the ${tool} tool`,
      });
    }
    const policy = policyOffer(this.#o.policy, tool);
    if (!policy.offer) {
      problems.push({
        kind: 'grant',
        why: 'is not granted',
        step: `grant it: ${policy.grant}`,
        brief: `allow ${tool} in the policy`,
      });
    }
    if (running) {
      const preflight = await this.#preflight(tool);
      if (preflight !== undefined) problems.push(preflight);
    }
    return { tool, problems };
  }

  async #preflight(tool: string): Promise<Problem | undefined> {
    let result: PreflightResult;
    try {
      result = await this.#o.preflight.get(tool);
    } catch (err) {
      result = { error: (err as Error).message, at: Date.now() };
    }
    const view = preflightView(result);
    const detail = view.detail.join('; ');
    switch (view.state) {
      case 'ready':
        return undefined;
      case 'not_configured':
        return {
          kind: 'configure',
          why: 'is not configured',
          step: `${detail.replace(/^configured: /, '')}, then ${restartStep(this.#o.launch, tool)}`,
          brief: configureBrief(tool, detail),
        };
      case 'not_ready':
        return {
          kind: 'fix',
          why: 'is not ready',
          step: `fix: ${detail}`,
          brief: `fix ${tool}'s backend (not ready)`,
        };
      case 'unknown':
        return {
          kind: 'fix',
          why: 'did not answer its preflight',
          step: `check its worker's log (${detail})`,
          brief: `check the ${tool} worker (no answer)`,
        };
    }
  }
}

/**
 * The steps of a capability: each tool's problems in order, a step several tools share
 * (Home Assistant's two keys) said once, naming them all.
 */
function steps(gaps: readonly ToolGap[]): string[] {
  const byStep = new Map<string, { tools: string[]; why: string }>();
  for (const gap of gaps) {
    for (const p of gap.problems) {
      const key = `${p.why}\n${p.step}`;
      const entry = byStep.get(key) ?? { tools: [], why: p.why };
      entry.tools.push(gap.tool);
      byStep.set(key, entry);
    }
  }
  return [...byStep].map(([key, { tools, why }]) => {
    const step = key.slice(key.indexOf('\n') + 1);
    const plural = tools.length > 1 ? why.replace(/^is /, 'are ') : why;
    return `${tools.join(' and ')} ${plural}; ${step}`;
  });
}

/** The caesar.yaml keys a preflight names (`set CAESAR_HA__URL (ha.url)`), as few words. */
const SETTING_KEY_RE = /\(([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+)\)/g;

/**
 * `set ha.url and ha.token`: the keys of a `not_configured` preflight without their env var
 * names (which a phone breaks mid-word); where it offers a choice (`… or …`), the first and a
 * count of the others; `configure <tool>` when it names no key.
 */
export function configureBrief(tool: string, detail: string): string {
  const keys = [...new Set([...detail.matchAll(SETTING_KEY_RE)].map((m) => m[1]!))];
  if (keys.length === 0) return `configure ${tool}`;
  if (keys.length === 1) return `set ${keys[0]!}`;
  if (/, or\b/.test(detail)) {
    const others = keys.length - 1;
    return `set ${keys[0]!} (or ${others} other option${others === 1 ? '' : 's'})`;
  }
  return `set ${keys.slice(0, 3).join(' and ')}`;
}
