import type Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsBase } from '@anthropic-ai/sdk/resources/messages/messages';
import { silentLogger, type Logger } from '../../log/index.js';
import {
  anthropicMessages,
  anthropicTools,
  EventAssembler,
  parseMessage,
} from './anthropic-wire.js';
import { originOf } from './errors.js';
import { completeWith, providerIdentity } from './provider-call.js';
import { sdkLogger } from './sdk-logger.js';
import type { LlmProvider, LlmRequest, LlmResponse } from './types.js';
import { KEYLESS_PLACEHOLDER } from './wire.js';

let anthropicSdk: Promise<typeof Anthropic> | undefined;

/**
 * The SDK, imported by the first request rather than with the brain: a brain whose
 * `llm.provider` is `none`, or names another provider, never loads it (ADR 0048).
 */
function loadAnthropic(): Promise<typeof Anthropic> {
  return (anthropicSdk ??= import('@anthropic-ai/sdk').then((m) => m.default));
}

interface AnthropicProviderOptions {
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
  readonly #clientOptions: ConstructorParameters<typeof Anthropic>[0];
  /** The SDK's client, made on the first request (ADR 0048). */
  #client: Anthropic | undefined;
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
    this.#clientOptions = {
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
    };
  }

  async complete(request: LlmRequest): Promise<LlmResponse> {
    const sdk = await loadAnthropic();
    const client = (this.#client ??= new sdk(this.#clientOptions));
    return completeWith(providerIdentity(this, this.#o, sdk), request, {
      once: async (signal) =>
        parseMessage(
          await client.messages.create({ ...this.#params(request), stream: false }, { signal }),
        ),
      stream: (signal) =>
        client.messages.create({ ...this.#params(request), stream: true }, { signal }),
      assembler: () => new EventAssembler(),
      incomplete: 'the stream ended before message_stop',
    });
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
}
