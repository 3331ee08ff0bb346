import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BrainService, Caller } from '../api/index.js';
import { chatCompletionRequestSchema } from '../api/openai.js';
import { identityOf } from './auth.js';
import { clientGoneSignal } from './client-gone.js';
import { logMapped, mapError, sendMappedError } from './error-map.js';
import {
  chatCompletion,
  compatActor,
  completionId,
  CompletionFrames,
  completionTurn,
  MODEL_LIST,
  openAiErrorBody,
  toCompletionRequest,
} from './openai-compat.js';
import { serveEventStream, type ChatStreamOptions } from './sse.js';
import { parseRequest } from './validate.js';

interface OpenAiRouteDeps {
  readonly service: BrainService;
  readonly messageMaxChars: number;
  readonly bodyLimitBytes: number;
  /** Heartbeats, stall time and slots of streamed turns (shared with `POST /v1/chat`). */
  readonly chatStreams: ChatStreamOptions;
}

/**
 * `GET /v1/models` and `POST /v1/chat/completions` (docs/openai-compat.md): CAESAR as one
 * OpenAI-compatible model, for Open WebUI, LibreChat and the OpenAI SDKs. A fastify plugin
 * of its own so that every failure on these routes, from the auth hook, the rate limiter,
 * the body parser or the handler, is answered in OpenAI's error shape.
 */
export function openAiRoutes(
  app: FastifyInstance,
  deps: OpenAiRouteDeps,
  done: (err?: Error) => void,
): void {
  const { service, chatStreams } = deps;
  const schema = chatCompletionRequestSchema(deps.messageMaxChars);

  app.setErrorHandler((err, req, reply) => {
    const mapped = mapError(err, deps.bodyLimitBytes);
    logMapped(req, err, mapped);
    sendMappedError(reply, req.id, mapped, openAiErrorBody(mapped));
  });

  app.get('/v1/models', { config: { scope: 'chat' } }, () => MODEL_LIST);

  app.post('/v1/chat/completions', { config: { scope: 'chat' } }, async (req, reply) => {
    const body = parseRequest(schema, req.body);
    const request = toCompletionRequest(body);
    const caller = compatCaller(req, body.user);
    const id = completionId();
    const created = Math.floor(Date.now() / 1000);
    if (body.stream !== true) {
      const signal = clientGoneSignal(reply);
      return chatCompletion(id, created, await service.complete(request, caller, { signal }));
    }
    const frames = new CompletionFrames(id, created, body.stream_options?.include_usage === true);
    const turn = completionTurn(frames, (onText, signal) =>
      service.complete(request, caller, {
        signal,
        onEvent: (event) => {
          if (event.type === 'text') onText(event.delta);
        },
      }),
    );
    return serveEventStream(req, reply, turn, chatStreams);
  });
  done();
}

function compatCaller(req: FastifyRequest, user: string | null | undefined): Caller {
  const identity = identityOf(req);
  // The auth hook runs first on every non-public route; reaching here without it is a bug.
  if (identity === undefined) {
    throw new Error(`route ${req.routeOptions.url} ran unauthenticated`);
  }
  // the request's `user` names the actor only: the principal is the token's (ADR 0096)
  const actor = compatActor(identity.name, user);
  return { actor, requestId: req.id, principal: identity.principal };
}
