import { llmError, toLlmError, type ErrorContext, type SdkErrors } from './errors.js';
import { RequestScope } from './request-scope.js';
import type { LlmRequest, LlmResponse, LlmTool, LlmToolCall } from './types.js';
import { callableOfFunction, offeredByFunctionName, type ParsedAnswer } from './wire.js';

/** Who is asked: what every provider's errors and answers name. */
interface ProviderIdentity {
  readonly name: string;
  readonly model: string;
  /** `api.openai.com`, `127.0.0.1:11434`. */
  readonly origin: string;
  /** Scrubbed from every message. */
  readonly apiKey: string | undefined;
  readonly timeoutMs: number;
  /** The SDK's error classes, to tell a timeout or an abort from a server's answer. */
  readonly sdk: SdkErrors;
}

/** A provider's identity: its name, model and origin, with the key and timeout it was given. */
export function providerIdentity(
  provider: Pick<ProviderIdentity, 'name' | 'model' | 'origin'>,
  options: { readonly apiKey?: string | undefined; readonly timeoutMs: number },
  sdk: SdkErrors,
): ProviderIdentity {
  const { name, model, origin } = provider;
  return { name, model, origin, apiKey: options.apiKey, timeoutMs: options.timeoutMs, sdk };
}

/** Builds one answer from a stream's parts (OpenAI chunks, Anthropic events). */
interface StreamAssembler {
  push(part: unknown, onText?: (delta: string) => void): void;
  result(): ParsedAnswer;
}

/** The provider-specific half of one request. */
interface ProviderRequests {
  /** One request, the whole answer at once. */
  once(signal: AbortSignal): Promise<ParsedAnswer>;
  /** One streamed request. */
  stream(signal: AbortSignal): Promise<AsyncIterable<unknown>>;
  assembler(): StreamAssembler;
  /** Why a stream that ended without the answer's final event is incomplete. */
  readonly incomplete: string;
}

/**
 * One `complete()` of a provider: the request scope (the caller's signal and the timeout),
 * streamed when the request has `onText`, and every failure as an LlmError that names the
 * provider and never the key.
 */
export async function completeWith(
  who: ProviderIdentity,
  request: LlmRequest,
  requests: ProviderRequests,
): Promise<LlmResponse> {
  using scope = new RequestScope(request.signal, who.timeoutMs);
  try {
    const answer = request.onText
      ? await streamed(who, scope, requests, request.onText)
      : await requests.once(scope.signal);
    return {
      provider: who.name,
      model: answer.model ?? who.model,
      text: answer.text,
      calls: callablesCalled(answer.calls, request.tools),
      usage: answer.usage,
      stopReason: answer.stopReason ?? 'unknown',
    };
  } catch (err) {
    throw toLlmError(err, who.sdk, contextOf(who, scope));
  }
}

/** The model's calls under the callables' own names (`home_assistant-entities` read back). */
function callablesCalled(calls: readonly LlmToolCall[], tools: readonly LlmTool[]): LlmToolCall[] {
  const offered = offeredByFunctionName(tools);
  return calls.map((c) => {
    const name = callableOfFunction(c.name, offered);
    return name === c.name ? c : { ...c, name };
  });
}

async function streamed(
  who: ProviderIdentity,
  scope: RequestScope,
  requests: ProviderRequests,
  onText: (delta: string) => void,
): Promise<ParsedAnswer> {
  const stream = await requests.stream(scope.signal);
  const assembler = requests.assembler();
  for await (const part of stream) assembler.push(part, onText);
  // the SDKs end the iteration quietly when the signal fires; say why it ended
  if (scope.signal.aborted) throw scope.signal.reason;
  const answer = assembler.result();
  if (answer.stopReason === undefined) {
    throw llmError('server', contextOf(who, scope), requests.incomplete, undefined);
  }
  return answer;
}

function contextOf(who: ProviderIdentity, scope: RequestScope): ErrorContext {
  return {
    provider: who.name,
    origin: who.origin,
    ...(who.apiKey === undefined ? {} : { apiKey: who.apiKey }),
    timeoutMs: who.timeoutMs,
    scope,
    nowMs: Date.now(),
  };
}
