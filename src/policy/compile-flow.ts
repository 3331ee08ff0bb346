import { citeRule, type CompileContext } from './compile-context.js';
import type { FlowVerdict, RuleRef } from './decision.js';
import type { FlowSectionSpec } from './schema.js';

/**
 * The flow rules at load (docs/policy.md, "Flow rules"; ADR 0066): the `flow:` section with its
 * defaults, and each allow rule's gates resolved against it once, as frozen verdicts, so a
 * model's call is judged without building anything but the decision.
 */

export type FlowAction = FlowVerdict['action'];
export type FlowGate = FlowVerdict['gate'];

/** Each gate's action when neither the rule nor the `flow:` section says: secure by default. */
const DEFAULT_FLOW_ACTION: FlowAction = 'confirm';

/** `set_by` of a gate no key of the file set. */
const FLOW_DEFAULT = 'flow default';

/** `private_match`: every private read gates (`any`), or only one the input shares words with. */
type PrivateMatch = 'any' | 'shared_words';

/** The `flow:` section, resolved: each gate's action and where it was said. */
export interface FlowSettings {
  readonly afterUntrusted: FlowVerdict;
  readonly afterPrivate: FlowVerdict;
  readonly privateMatch: PrivateMatch;
  /** Where `private_match` is written, or `flow default`. */
  readonly privateMatchSetBy: string;
}

/** An allow rule's gates, resolved (rule key, else section, else default). */
export interface RuleFlow {
  readonly untrusted: FlowVerdict;
  readonly private: FlowVerdict;
  /** `[untrusted]`, `[private]`, `[untrusted, private]`: the verdict lists a decision carries. */
  readonly lists: readonly [readonly FlowVerdict[], readonly FlowVerdict[], readonly FlowVerdict[]];
  /** Each gate's words for the decision's reason, built once. */
  readonly text: Readonly<Record<FlowGate, GateText>>;
}

/** What a reason says of a gate that applied. */
interface GateText {
  /** Why it holds or refuses the call: what the model had done, the action and who set it. */
  readonly clause: string;
  /** Appended to an allowed call's reason: the risk accepted, or a human's approval. */
  readonly passed: string;
}

/** What the model had done, per gate, for the reasons. */
const BECAUSE = {
  after_untrusted: 'a model asked for it after reading untrusted content',
  after_private: 'a model asked for it after reading private data, for a tool that reaches outside',
  shared_words:
    'a model asked for it after reading private data, with words of that data in its input, for a tool that reaches outside',
} as const;

function gateText(v: FlowVerdict, privateMatch: PrivateMatch): GateText {
  const because =
    v.gate === 'after_private' && privateMatch === 'shared_words'
      ? BECAUSE.shared_words
      : BECAUSE[v.gate];
  return Object.freeze({
    clause: `${because} (flow ${v.gate}: ${v.action}, set by ${v.set_by})`,
    passed:
      v.action === 'allow'
        ? `; ${v.gate} accepted by ${v.set_by}`
        : `; ${v.gate} approved by a human (set by ${v.set_by})`,
  });
}

/** The keys an allow rule may carry. */
interface RuleFlowSpec {
  readonly after_untrusted?: FlowAction | undefined;
  readonly after_private?: FlowAction | undefined;
}

const verdict = (gate: FlowGate, action: FlowAction, setBy: string): FlowVerdict =>
  Object.freeze({ gate, action, set_by: setBy });

/** The section's settings; a key not written takes the default (`confirm`, `any`). */
export function compileFlowSection(ctx: CompileContext, spec: FlowSectionSpec): FlowSettings {
  const at = (key: string) => {
    const { line, column } = ctx.source.locate(['flow'], key);
    return `flow.${key} (${ctx.file}:${line}:${column} in policy sha256 ${ctx.sha256.slice(0, 12)})`;
  };
  const gate = (g: FlowGate) => {
    const action = spec[g];
    return action === undefined
      ? verdict(g, DEFAULT_FLOW_ACTION, FLOW_DEFAULT)
      : verdict(g, action, at(g));
  };
  return Object.freeze({
    afterUntrusted: gate('after_untrusted'),
    afterPrivate: gate('after_private'),
    privateMatch: spec.private_match ?? 'any',
    privateMatchSetBy: spec.private_match === undefined ? FLOW_DEFAULT : at('private_match'),
  });
}

/** An allow rule's gates: its own `after_*` key (cited at the key), else the section's. */
export function compileRuleFlow(
  ctx: CompileContext,
  ref: RuleRef,
  spec: RuleFlowSpec,
  section: FlowSettings,
): RuleFlow {
  const own = (g: FlowGate, fallback: FlowVerdict): FlowVerdict => {
    const action = spec[g];
    if (action === undefined) return fallback;
    const at = ctx.source.locate([ref.list ?? '', ref.index ?? 0], g);
    return verdict(g, action, citeRule({ ...ref, ...at }, ctx.sha256));
  };
  const untrusted = own('after_untrusted', section.afterUntrusted);
  const priv = own('after_private', section.afterPrivate);
  const lists = [
    Object.freeze([untrusted]),
    Object.freeze([priv]),
    Object.freeze([untrusted, priv]),
  ] as const;
  const text = Object.freeze({
    after_untrusted: gateText(untrusted, section.privateMatch),
    after_private: gateText(priv, section.privateMatch),
  });
  return Object.freeze({ untrusted, private: priv, lists: Object.freeze(lists), text });
}
