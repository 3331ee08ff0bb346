import { parseTemplate, toText, type Placeholder, type TemplateParts } from './placeholder.js';
import { resolve, type Scope } from './scope.js';

/**
 * The `input:` of a rule: JSON-like data whose strings may hold placeholders. A string that is
 * exactly one placeholder keeps the value's type (`"{brightness}"` gives the number 50);
 * any other string is text with the values written in.
 */
export type InputTemplate =
  | { readonly kind: 'const'; readonly value: unknown }
  | { readonly kind: 'text'; readonly parts: TemplateParts }
  | { readonly kind: 'value'; readonly placeholder: Placeholder }
  | { readonly kind: 'array'; readonly items: readonly InputTemplate[] }
  | { readonly kind: 'object'; readonly entries: readonly (readonly [string, InputTemplate])[] };

/** Deepest nesting of an input template. */
const MAX_INPUT_DEPTH = 8;
/** Most nodes (values, keys included) in one input template. */
const MAX_INPUT_NODES = 500;

/** A problem at a path inside the input template. */
interface InputProblem {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/**
 * Compiles an input template; `check` vets each placeholder (undefined when fine). Problems
 * are collected, not thrown.
 */
export function compileInput(
  value: unknown,
  check: (ph: Placeholder) => string | undefined,
): { template: InputTemplate; problems: InputProblem[] } {
  const problems: InputProblem[] = [];
  let nodes = 0;
  const walk = (v: unknown, path: (string | number)[]): InputTemplate => {
    if (++nodes > MAX_INPUT_NODES) {
      if (nodes === MAX_INPUT_NODES + 1) {
        problems.push({ path, message: `input has more than ${MAX_INPUT_NODES} values` });
      }
      return { kind: 'const', value: null };
    }
    if (path.length > MAX_INPUT_DEPTH) {
      problems.push({ path, message: `input nests deeper than ${MAX_INPUT_DEPTH}` });
      return { kind: 'const', value: null };
    }
    if (typeof v === 'string') return compileString(v, path, check, problems);
    if (Array.isArray(v)) return { kind: 'array', items: v.map((x, i) => walk(x, [...path, i])) };
    if (typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype) {
      const entries = Object.entries(v).map(([k, x]) => [k, walk(x, [...path, k])] as const);
      return { kind: 'object', entries };
    }
    if (v === null || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) {
      return { kind: 'const', value: v };
    }
    problems.push({ path, message: 'expected JSON data (maps, lists, text, numbers, booleans)' });
    return { kind: 'const', value: null };
  };
  return { template: walk(value ?? {}, []), problems };
}

function compileString(
  text: string,
  path: (string | number)[],
  check: (ph: Placeholder) => string | undefined,
  problems: InputProblem[],
): InputTemplate {
  let parts: TemplateParts;
  try {
    parts = parseTemplate(text);
  } catch (err) {
    problems.push({ path, message: (err as Error).message });
    return { kind: 'const', value: text };
  }
  for (const part of parts) {
    const problem = typeof part === 'string' ? undefined : check(part);
    if (problem !== undefined) problems.push({ path, message: problem });
  }
  const only = parts[0];
  if (parts.length === 1 && typeof only !== 'string' && only !== undefined) {
    return { kind: 'value', placeholder: only };
  }
  return { kind: 'text', parts };
}

/** Builds the tool input from the slots. */
export function renderInput(template: InputTemplate, scope: Scope): unknown {
  switch (template.kind) {
    case 'const':
      return template.value;
    case 'value':
      return resolve(template.placeholder, scope) ?? null;
    case 'text':
      return renderText(template.parts, scope);
    case 'array':
      return template.items.map((item) => renderInput(item, scope));
    case 'object':
      return Object.fromEntries(template.entries.map(([k, v]) => [k, renderInput(v, scope)]));
  }
}

/** A template string with each placeholder written in as text. */
export function renderText(parts: TemplateParts, scope: Scope): string {
  let out = '';
  for (const part of parts) out += typeof part === 'string' ? part : toText(resolve(part, scope));
  return out;
}
