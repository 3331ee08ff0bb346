import { createHash, randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  ACTION_SEPARATOR,
  CALLABLE_NAME_PATTERN,
  firstFieldIssue,
  otherHaName,
} from '../../protocol/index.js';
import type { LlmTool, LlmToolCall, LlmUsage } from './types.js';

/**
 * Small rules both providers' wire formats share: call ids every API accepts, a tool's
 * parameters schema as the APIs want it, and a call id for servers that send none.
 */

/** Sent as the key to servers that want none (Ollama, llama.cpp): the SDKs insist on one. */
export const KEYLESS_PLACEHOLDER = 'not-needed';

const SAFE_ID = /^[A-Za-z0-9_-]{1,40}$/;

/**
 * A call id as it goes on the wire: unchanged when every API accepts it (letters, digits,
 * `_`, `-`, at most 40: OpenAI's length limit, inside Anthropic's pattern), else a stable
 * `call_<hash>` of it, so a call and its result keep matching after a failover between
 * providers whose ids look different.
 */
export function wireCallId(id: string): string {
  if (SAFE_ID.test(id)) return id;
  return `call_${createHash('sha256').update(id).digest('hex').slice(0, 32)}`;
}

/**
 * A callable's name as a model API's function name. OpenAI and Anthropic take
 * `^[a-zA-Z0-9_-]{1,64}$`, no dot: an action `home_assistant.entities` goes out as
 * `home_assistant-entities` (a tool name holds no `-`, so no two callables meet). A
 * one-action tool's name goes out as it is. ADR 0092.
 */
export function functionName(callable: string): string {
  return callable.replace(ACTION_SEPARATOR, '-');
}

/**
 * The callable a model's function name stands for: an offered one by the name it went out
 * under; else a name in the function form of an action (`notes-write`, which no tool name can
 * be: a tool name holds no `-`) as that action, so a call of an action the model was not
 * offered is judged, and audited, under its real name like any other call nobody offered.
 * Any other name stays as the model wrote it. The name is data either way: the policy judges
 * whatever it becomes.
 */
export function callableOfFunction(name: string, offered: ReadonlyMap<string, string>): string {
  const known = offered.get(name);
  if (known !== undefined) return known;
  const dotted = name.replace('-', ACTION_SEPARATOR);
  const callable = dotted !== name && CALLABLE_NAME_PATTERN.test(dotted) ? dotted : name;
  // a Home Assistant callable under the other of its names, when that one was offered (ADR 0093)
  const other = otherHaName(callable);
  return other !== undefined && offered.has(functionName(other)) ? other : callable;
}

/** The offered callables by the function names they went out under. */
export function offeredByFunctionName(tools: readonly LlmTool[]): ReadonlyMap<string, string> {
  return new Map(tools.map((t) => [functionName(t.name), t.name]));
}

/** An id for a call a server sent without one (some OpenAI-compatible servers do). */
export function newCallId(): string {
  return `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
}

/**
 * A tool's input JSON Schema as a model API wants it: an object schema, without the
 * top-level `$schema` dialect marker (that some compatible servers refuse).
 */
export function toolParameters(schema: Readonly<Record<string, unknown>>): {
  type: 'object';
  [key: string]: unknown;
} {
  const { $schema: _dialect, ...rest } = schema;
  return { ...rest, type: 'object' };
}

/** What a provider makes its LlmResponse of. */
export interface ParsedAnswer {
  readonly model?: string;
  readonly text: string;
  readonly calls: LlmToolCall[];
  readonly usage: LlmUsage;
  /** Undefined when a stream ended before the model said why it stopped. */
  readonly stopReason?: string;
}

/**
 * An answer that is not the wire format: a signal inside the llm module, never thrown past
 * it; the error mapping (`toLlmError`) makes it the `bad_response` LlmError.
 */
export class WireFormatError extends Error {
  override readonly name = 'WireFormatError';
}

/** `value` as `schema` reads it, or a WireFormatError naming the first thing wrong. */
export function check<T>(schema: z.ZodType<T>, value: unknown, what: string, format: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = firstFieldIssue(r.error);
  const where = issue?.path ? ` at ${issue.path}` : '';
  throw new WireFormatError(`${what} is not ${format}${where}: ${issue?.message ?? 'invalid'}`);
}
