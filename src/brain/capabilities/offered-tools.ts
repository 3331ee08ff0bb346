import { silentLogger, type Logger } from '../../log/index.js';
import { matchesTags, type TagFilter } from '../../protocol/index.js';
import type { Principal } from '../../policy/index.js';
import type { PlannerTool } from '../agent/index.js';
import { toolCard } from '../llm/card.js';
import { policyOffer, type OfferPolicy } from './policy-offer.js';
import type { RegisteredTool } from '../registry/index.js';
import { preflightView, type PreflightResult } from '../preflight/index.js';
import { CHECK_PRECONDITIONS, preconditionsTool } from './check-preconditions.js';
import { JOB_STATUS, jobStatusTool } from './job-status.js';
import { mayRunAsJob } from '../../protocol/index.js';

/** Principals whose offered lists are kept at once (tokens name them; the list is cheap). */
const MAX_CACHED_PRINCIPALS = 64;

export interface OfferedToolsOptions {
  /** The live tools; a Registry is one. */
  readonly registry: { tools(): readonly RegisteredTool[] };
  readonly policy: OfferPolicy;
  /** Preflight answers, kept for a while; a PreflightCache is one (share the brain's). */
  readonly preflight: { get(tool: string): Promise<PreflightResult> };
  /** Which tools the model may see by tag: the config's `llm` section fits as is. @default all */
  readonly tags?: TagFilter;
  readonly logger?: Logger;
}

/**
 * The tools the planner is offered: discovered, passing the tag filter, allowed by the policy
 * (see {@link policyOffer}) and `ready` by their last preflight (`not_configured`,
 * `not_ready` and `unknown` are left out), each as its tool card and input schema, sorted by
 * name; then, when any tool is offered, the brain's own `check_preconditions` (ADR 0091),
 * whose name no worker's tool may take from it.
 *
 * Cached: the list is rebuilt only when an input changed (the registry's tools or their spec
 * digests, the policy's sha256, a preflight's state or detail). Preflights come from the
 * shared cache, which asks a worker at most once per its TTL; a tool already seen is judged
 * on its last known answer while a stale one is refreshed in the background, so no chat
 * message waits on a preflight round trip except for a tool seen for the first time.
 */
export class OfferedTools {
  readonly #o: OfferedToolsOptions;
  readonly #logger: Logger;
  readonly #known = new Map<string, PreflightResult>();
  /** The last list per principal (`''`: no principal), at most MAX_CACHED_PRINCIPALS. */
  readonly #cache = new Map<string, { key: string; tools: readonly PlannerTool[] }>();

  constructor(options: OfferedToolsOptions) {
    this.#o = options;
    this.#logger = options.logger ?? silentLogger();
  }

  /**
   * The tools to offer now, to `who` when given (ADR 0096: a tool the policy denies that
   * principal is left out). Never rejects for a tool's sake: a failing one is left out.
   */
  async tools(who?: Principal): Promise<readonly PlannerTool[]> {
    const candidates = this.#o.registry
      .tools()
      .filter((t) => matchesTags(t.spec.tags, this.#o.tags));
    const preflights = await this.#preflights(candidates.map((t) => t.name));
    const views = candidates.map((t) => {
      const r = preflights.get(t.name);
      return r === undefined ? undefined : preflightView(r);
    });
    const key = JSON.stringify([
      this.#o.policy.policy.sha256,
      candidates.map((t, i) => [t.name, t.specSha256, views[i]?.state, views[i]?.detail]),
    ]);
    const whoKey = who === undefined ? '' : JSON.stringify([who.name, [...who.groups].sort()]);
    const cached = this.#cache.get(whoKey);
    if (cached?.key === key) return cached.tools;
    const tools = this.#build(candidates, views, who);
    if (this.#cache.size >= MAX_CACHED_PRINCIPALS && cached === undefined) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    this.#cache.set(whoKey, { key, tools });
    return tools;
  }

  #build(
    candidates: readonly RegisteredTool[],
    views: readonly (ReturnType<typeof preflightView> | undefined)[],
    who: Principal | undefined,
  ): readonly PlannerTool[] {
    const offered: PlannerTool[] = [];
    const skipped: { tool: string; why: string }[] = [];
    candidates.forEach((t, i) => {
      if (t.name === CHECK_PRECONDITIONS || t.name === JOB_STATUS) {
        skipped.push({ tool: t.name, why: "the name of the brain's own action" });
        return;
      }
      const view = views[i];
      if (view?.state !== 'ready') {
        skipped.push({ tool: t.name, why: `preflight ${view?.state ?? 'unknown'}` });
        return;
      }
      const policy = policyOffer(this.#o.policy, t.name, who);
      if (!policy.offer) {
        skipped.push({ tool: t.name, why: policy.why });
        return;
      }
      const description = toolCard(t.spec, view, { policy: policy.terms });
      offered.push(Object.freeze({ name: t.name, description, inputSchema: t.spec.input_schema }));
    });
    const jobs = candidates.some(
      (t) => mayRunAsJob(t.spec) && offered.some((o) => o.name === t.name),
    );
    if (offered.length > 0) offered.push(preconditionsTool(offered.map((t) => t.name)));
    // a job answers at once with its id: the model follows it with job_status (ADR 0098)
    if (jobs) offered.push(jobStatusTool());
    this.#logger.debug(
      {
        offered: offered.map((t) => t.name),
        skipped,
        policy: this.#o.policy.policy.sha256,
        ...(who === undefined ? {} : { principal: who.name }),
      },
      'offered tools rebuilt',
    );
    return Object.freeze(offered);
  }

  /** The last known preflight of each tool; only tools never seen before are waited for. */
  async #preflights(names: readonly string[]): Promise<ReadonlyMap<string, PreflightResult>> {
    const live = new Set(names);
    for (const name of this.#known.keys()) if (!live.has(name)) this.#known.delete(name);
    const firsts: Promise<void>[] = [];
    for (const name of names) {
      const asked = this.#o.preflight.get(name).then(
        (r) => this.#remember(name, r),
        (err: unknown) => this.#logger.warn({ err, tool: name }, 'preflight lookup failed'),
      );
      if (!this.#known.has(name)) firsts.push(asked);
    }
    await Promise.all(firsts);
    return new Map(this.#known);
  }

  #remember(name: string, result: PreflightResult): void {
    const known = this.#known.get(name);
    if (known === undefined || result.at >= known.at) this.#known.set(name, result);
  }
}
