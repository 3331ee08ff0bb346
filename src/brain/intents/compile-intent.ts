import { compileSentence, slotsOf } from './compile-sentence.js';
import { compileInput, type InputTemplate } from './input-template.js';
import type { Item } from './matcher.js';
import { phraseKey } from './matcher.js';
import { parseTemplate, type TemplateParts } from './placeholder.js';
import { replyTemplates, type ReplyKind, type ReplyTemplates } from './reply.js';
import { REPLY_OUTCOMES, type IntentSpec, type SlotSpec, type SlotType } from './schema.js';
import { placeholderProblem, RESERVED_NAMES } from './scope.js';

/** One rule, ready to match. */
export interface CompiledIntent {
  readonly name: string;
  readonly tool: string;
  readonly description: string | undefined;
  readonly example: string | undefined;
  readonly sentences: readonly CompiledSentenceEntry[];
  readonly slots: ReadonlyMap<string, SlotSpec>;
  readonly input: InputTemplate;
  readonly replies: ReplyTemplates;
}

interface CompiledSentenceEntry {
  readonly text: string;
  readonly variants: readonly (readonly Item[])[];
}

/** A problem at a path relative to the intent; `key` points at a map key. */
interface IntentProblem {
  readonly path: readonly (string | number)[];
  readonly message: string;
  readonly key?: string;
}

/** Compiles one schema-valid rule, collecting every problem rather than stopping at the first. */
export function compileIntent(spec: IntentSpec): {
  intent: CompiledIntent;
  problems: IntentProblem[];
} {
  const problems: IntentProblem[] = [];
  const slots = new Map(Object.entries(spec.slots ?? {}));
  problems.push(...checkSlots(slots));
  const sentences: CompiledSentenceEntry[] = [];
  spec.sentences.forEach((text, k) => {
    const compiled = compileSentence(text, slots);
    if (compiled.ok) sentences.push({ text, variants: compiled.variants });
    else
      for (const message of compiled.problems) problems.push({ path: ['sentences', k], message });
  });
  const mentioned = spec.sentences.map(slotsOf);
  const used = new Set(mentioned.flatMap((names) => [...(names ?? [])]));
  // A sentence that does not parse may well use the slot: only its syntax error is reported.
  for (const name of mentioned.includes(undefined) ? [] : slots.keys()) {
    if (!used.has(name)) {
      problems.push({
        path: ['slots'],
        key: name,
        message: `slot {${name}} is not used by any sentence`,
      });
    }
  }
  const types = new Map<string, SlotType>([...slots].map(([k, v]) => [k, v.type]));
  const input = compileInput(spec.input, (ph) => placeholderProblem(ph, types, false));
  for (const p of input.problems) problems.push({ path: ['input', ...p.path], message: p.message });
  const ok = compileReply(spec.reply, ['reply'], types, problems);
  const overrides: Partial<Record<ReplyKind, TemplateParts>> = {};
  for (const outcome of REPLY_OUTCOMES) {
    const text = spec.replies?.[outcome];
    if (text !== undefined) {
      overrides[outcome] = compileReply(text, ['replies', outcome], types, problems);
    }
  }
  const intent: CompiledIntent = {
    name: spec.name,
    tool: spec.tool,
    description: spec.description,
    example: spec.example,
    sentences,
    slots,
    input: input.template,
    replies: replyTemplates(ok, overrides),
  };
  return { intent, problems };
}

function compileReply(
  text: string,
  path: (string | number)[],
  types: ReadonlyMap<string, SlotType>,
  problems: IntentProblem[],
): TemplateParts {
  try {
    const parts = parseTemplate(text);
    for (const part of parts) {
      const problem = typeof part === 'string' ? undefined : placeholderProblem(part, types, true);
      if (problem !== undefined) problems.push({ path, message: problem });
    }
    return parts;
  } catch (err) {
    problems.push({ path, message: (err as Error).message });
    return [text];
  }
}

function checkSlots(slots: ReadonlyMap<string, SlotSpec>): IntentProblem[] {
  const problems: IntentProblem[] = [];
  for (const [name, spec] of slots) {
    const at = (message: string, sub: (string | number)[] = []): void => {
      problems.push({ path: ['slots', name, ...sub], message });
    };
    if (RESERVED_NAMES.has(name)) {
      problems.push({
        path: ['slots'],
        key: name,
        message: `slot name {${name}} is reserved for replies (${[...RESERVED_NAMES].join(', ')})`,
      });
    }
    if (spec.type === 'enum') {
      const keys = Object.keys(spec.values).map(phraseKey);
      const dup = keys.find((k, i) => keys.indexOf(k) !== i);
      if (dup !== undefined) at(`spoken value '${dup}' is listed twice`, ['values']);
      if (spec.default !== undefined && !keys.includes(phraseKey(spec.default))) {
        at(`default '${spec.default}' is not one of the values`, ['default']);
      }
    }
    if (spec.type === 'number') {
      if (spec.min !== undefined && spec.max !== undefined && spec.min > spec.max) {
        at('min is above max', ['min']);
      }
      const d = spec.default;
      if (d !== undefined && ((spec.min ?? d) > d || (spec.max ?? d) < d)) {
        at('default is outside min..max', ['default']);
      }
    }
  }
  return problems;
}
