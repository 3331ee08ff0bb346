import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsBase } from '@anthropic-ai/sdk/resources/messages/messages';
import { silentLogger, type Logger } from '../../log/index.js';
import {
  anthropicMessages,
  anthropicTools,
  EventAssembler,
  parseMessage,
} from './anthropic-wire.js';
import { llmError, originOf, toLlmError, type ErrorContext } from './errors.js';
import { RequestScope } from './request-scope.js';
import { sdkLogger } from './sdk-logger.js';
import type { LlmProvider, LlmRequest, LlmResponse } from './types.js';
import { KEYLESS_PLACEHOLDER, type ParsedAnswer } from './wire.js';

export interface AnthropicProviderOptions {
  /** `https://api.anthropic.com` (the SDK adds `/v1/messages`). */
  readonly baseUrl: string;
  /** Absent: no key is sent (a proxy that authenticates otherwise). */
  readonly apiKey?: string;
  readonly model: string;
  /** Deadline of one request, a streamed answer included. */
  readonly timeoutMs: number;
  readonly maxTokens: number;
  /** Unset: the API's default. The API takes 0..1; a higher setting is lowered to 1. */
  readonly temperature?: number;
  readonly logger?: Logger;
}

/**
 * Anthropic's Messages API over the official `@anthropic-ai/sdk` client. One request per
 * `complete()`: the SDK's retries are off (`maxRetries: 0`; the chain retries) and no
 * credential is looked up from the environment or profile files. The key goes in the
 * `x-api-key` header, as the API reference documents. Streams when the request has
 * `onText`.
 */
export class AnthropicProvider implements LlmProvider {
  readonly name = 'anthropic';
  readonly model: string;
  readonly origin: string;
  readonly #o: AnthropicProviderOptions;
  readonly #client: Anthropic;
  readonly #temperature: number | undefined;

  constructor(options: AnthropicProviderOptions) {
    this.#o = options;
    this.model = options.model;
    this.origin = originOf(options.baseUrl);
    const logger = options.logger ?? silentLogger();
    if (options.temperature !== undefined && options.temperature > 1) {
      logger.warn(
        { provider: this.name, temperature: options.temperature },
        'anthropic takes a temperature of at most 1; sending 1',
      );
    }
    this.#temperature =
      options.temperature === undefined ? undefined : Math.min(options.temperature, 1);
    this.#client = new Anthropic({
      // a credential given here keeps the SDK from resolving one from env or profile files;
      // the Authorization header it would make of it is removed: the key goes in x-api-key
      apiKey: options.apiKey ?? KEYLESS_PLACEHOLDER,
      defaultHeaders: {
        Authorization: null,
        ...(options.apiKey === undefined ? {} : { 'x-api-key': options.apiKey }),
      },
      baseURL: options.baseUrl,
      timeout: options.timeoutMs,
      maxRetries: 0,
      logger: sdkLogger(logger, this.name),
      logLevel: 'warn',
    });
  }

  async complete(request: LlmRequest): Promise<LlmResponse> {
    using scope = new RequestScope(request.signal, this.#o.timeoutMs);
    try {
      const answer = request.onText
        ? await this.#stream(request, scope, request.onText)
        : await this.#once(request, scope.signal);
      return {
        provider: this.name,
        model: answer.model ?? this.model,
        text: answer.text,
        calls: answer.calls,
        usage: answer.usage,
        stopReason: answer.stopReason ?? 'unknown',
      };
    } catch (err) {
      throw toLlmError(err, Anthropic, this.#context(scope));
    }
  }

  #params(request: LlmRequest): MessageCreateParamsBase {
    return {
      model: this.#o.model,
      max_tokens: this.#o.maxTokens,
      messages: anthropicMessages(request.messages),
      ...(request.system === '' ? {} : { system: request.system }),
      ...(request.tools.length > 0 ? { tools: anthropicTools(request.tools) } : {}),
      ...(this.#temperature === undefined ? {} : { temperature: this.#temperature }),
    };
  }

  async #once(request: LlmRequest, signal: AbortSignal): Promise<ParsedAnswer> {
    const body: unknown = await this.#client.messages.create(
      { ...this.#params(request), stream: false },
      { signal },
    );
    return parseMessage(body);
  }

  async #stream(
    request: LlmRequest,
    scope: RequestScope,
    onText: (delta: string) => void,
  ): Promise<ParsedAnswer> {
    const stream = await this.#client.messages.create(
      { ...this.#params(request), stream: true },
      { signal: scope.signal },
    );
    const assembler = new EventAssembler();
    for await (const event of stream) assembler.push(event, onText);
    // the SDK ends the iteration quietly when the signal fires; say why it ended
    if (scope.signal.aborted) throw scope.signal.reason;
    const answer = assembler.result();
    if (answer.stopReason === undefined) {
      throw llmError(
        'server',
        this.#context(scope),
        'the stream ended before message_stop',
        undefined,
      );
    }
    return answer;
  }

  #context(scope: RequestScope): ErrorContext {
    return {
      provider: this.name,
      origin: this.origin,
      ...(this.#o.apiKey === undefined ? {} : { apiKey: this.#o.apiKey }),
      timeoutMs: this.#o.timeoutMs,
      scope,
      nowMs: Date.now(),
    };
  }
}
