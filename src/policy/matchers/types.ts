import type { z } from 'zod';
import type { Obligation } from '../decision.js';

/**
 * A check an allow rule runs on a tool's input: `null` when the input passes, else why not
 * (`input.max_results 50 is above max_results 10`). `now` is the engine's clock, read only
 * by checks that need it.
 */
export type InputCheck = (
  input: Readonly<Record<string, unknown>>,
  now: () => number,
) => string | null;

/** What a typed key contributes to an allow rule once its value is validated. */
interface CompiledTypedKey {
  readonly check?: InputCheck;
  readonly obligation?: Obligation;
}

/**
 * A tool-specific key of an `input:` block (`web_search.domain_allowlist`): not a constraint on
 * one input field but a setting with its own type and meaning. Allow rules only.
 */
export interface TypedKey<T = unknown> {
  /** One line for docs and error hints. */
  readonly summary: string;
  /** Validates the value written in the policy file. */
  readonly schema: z.ZodType<T, unknown>;
  /** Input fields this key governs: `additional_input: false` does not refuse them. */
  readonly governs: readonly string[];
  compile(value: T): CompiledTypedKey;
}

/**
 * What the policy knows about one shipped tool: the input fields generic constraints may name
 * and the typed keys it declares. `src/policy` stays pure, so this restates the tool's input
 * field names rather than importing the worker (a test keeps the two in step).
 */
export interface ToolMatcher {
  readonly tool: string;
  /** Names of the tool's input fields. */
  readonly fields: readonly string[];
  /**
   * Other names the tool takes for a field (`limit` for web_search's `max_results`): the
   * policy judges such a value under the field's own name, whichever name the call used.
   */
  readonly aliases?: Readonly<Record<string, string>>;
  readonly keys: Readonly<Record<string, TypedKey>>;
}

/** Declares a typed key, its value type inferred from the schema. */
export function typedKey<T>(key: TypedKey<T>): TypedKey {
  return key;
}
