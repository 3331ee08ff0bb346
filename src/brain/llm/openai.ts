import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { silentLogger, type Logger } from '../../log/index.js';
import { originOf } from './errors.js';
import { completeWith, providerIdentity } from './provider-call.js';
import { ChunkAssembler, openAiMessages, openAiTools, parseCompletion } from './openai-wire.js';
import { sdkLogger } from './sdk-logger.js';
import type { LlmProvider, LlmRequest, LlmResponse } from './types.js';
import { KEYLESS_PLACEHOLDER } from './wire.js';

let openaiSdk: Promise<typeof OpenAI> | undefined;

/**
 * The SDK, imported by the first request rather than with the brain: a brain whose
 * `llm.provider` is `none`, or names another provider, never loads it (ADR 0048).
 */
function loadOpenAI(): Promise<typeof OpenAI> {
  return (openaiSdk ??= import('openai').then((m) => m.default));
}

interface OpenAiProviderOptions {
  /** The provider's name in messages, attempts and metrics. @default 'openai' */
  readonly name?: string;
  /** Chat completions base, with `/v1` (`https://api.openai.com/v1`). */
  readonly baseUrl: string;
  /** Absent: a placeholder is sent (keyless local servers). */
  readonly apiKey?: string;
  readonly model: string;
  /** Deadline of one request, a streamed answer included. */
  readonly timeoutMs: number;
  readonly maxTokens: number;
  /** Unset: the server's default. */
  readonly temperature?: number;
  /**
   * The parameter that carries `maxTokens`. @default `max_completion_tokens` at
   * api.openai.com (where `max_tokens` is deprecated and refused by reasoning models),
   * `max_tokens` elsewhere (what Ollama, llama.cpp, vLLM and LM Studio read)
   */
  readonly tokenLimitParam?: 'max_tokens' | 'max_completion_tokens';
  readonly logger?: Logger;
}

/**
 * An OpenAI chat completions endpoint (OpenAI itself or any compatible server) over the
 * official `openai` client. One request per `complete()`: the SDK's own retries are off
 * (`maxRetries: 0`; the chain retries), and its environment variables are not read.
 * Streams when the request has `onText` (`stream_options.include_usage` for the usage).
 */
export class OpenAiProvider implements LlmProvider {
  readonly name: string;
  readonly model: string;
  readonly origin: string;
  readonly #o: OpenAiProviderOptions;
  readonly #clientOptions: ConstructorParameters<typeof OpenAI>[0];
  /** The SDK's client, made on the first request (ADR 0048). */
  #client: OpenAI | undefined;
  readonly #tokenParam: 'max_tokens' | 'max_completion_tokens';

  constructor(options: OpenAiProviderOptions) {
    this.#o = options;
    this.name = options.name ?? 'openai';
    this.model = options.model;
    this.origin = originOf(options.baseUrl);
    this.#clientOptions = {
      apiKey: options.apiKey ?? KEYLESS_PLACEHOLDER,
      baseURL: options.baseUrl,
      organization: null,
      project: null,
      timeout: options.timeoutMs,
      maxRetries: 0,
      logger: sdkLogger(options.logger ?? silentLogger(), this.name),
      logLevel: 'warn',
    };
    this.#tokenParam =
      options.tokenLimitParam ??
      (this.origin === 'api.openai.com' ? 'max_completion_tokens' : 'max_tokens');
  }

  async complete(request: LlmRequest): Promise<LlmResponse> {
    const sdk = await loadOpenAI();
    const client = (this.#client ??= new sdk(this.#clientOptions));
    return completeWith(providerIdentity(this, this.#o, sdk), request, {
      once: async (signal) =>
        parseCompletion(
          await client.chat.completions.create(
            { ...this.#params(request), stream: false },
            { signal },
          ),
        ),
      stream: (signal) =>
        client.chat.completions.create(
          { ...this.#params(request), stream: true, stream_options: { include_usage: true } },
          { signal },
        ),
      assembler: () => new ChunkAssembler(),
      incomplete: 'the stream ended before the answer was complete',
    });
  }

  #params(request: LlmRequest): ChatCompletionCreateParamsBase {
    const o = this.#o;
    return {
      model: o.model,
      messages: openAiMessages(request.system, request.messages),
      ...(request.tools.length > 0
        ? { tools: openAiTools(request.tools), tool_choice: 'auto' as const }
        : {}),
      ...(this.#tokenParam === 'max_tokens'
        ? { max_tokens: o.maxTokens }
        : { max_completion_tokens: o.maxTokens }),
      ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
    };
  }
}

/**
 * Ollama through its OpenAI-compatible endpoint, `<base_url>/v1` (a base URL that already
 * ends in `/v1` is used as it is). Named `ollama`; keyless unless a key is configured (a
 * proxy in front of Ollama may want one).
 */
export function ollamaProvider(
  options: Omit<OpenAiProviderOptions, 'name' | 'tokenLimitParam'>,
): OpenAiProvider {
  return new OpenAiProvider({ ...options, name: 'ollama', baseUrl: ollamaV1(options.baseUrl) });
}

/** `http://host:11434` -> `http://host:11434/v1`. */
export function ollamaV1(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/v1') ? trimmed : `${trimmed}/v1`;
}
