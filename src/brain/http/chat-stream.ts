import type { BrainService, Caller, ChatEvent, ChatRequest, ChatResponse } from '../api/index.js';
import { sseEvent, type EventTurn } from './sse.js';

/**
 * `POST /v1/chat` with `Accept: text/event-stream`: each ChatEvent of the turn as one SSE
 * event, named by its `type`, its data the JSON of the rest (`event: text` /
 * `data: {"delta":"17 * 23"}`), ending with `done` (the ChatResponse) or `error`.
 */
export function chatTurn(
  service: BrainService,
  request: ChatRequest,
  caller: Caller,
): EventTurn<ChatResponse> {
  return {
    run: (emit, signal) =>
      service.chat(request, caller, {
        signal,
        onEvent: (event) => emit(chatEventFrame(event)),
      }),
    done: (response) => sseEvent('done', { response }),
    failed: (m) => sseEvent('error', { error: { code: m.code, message: m.message } }),
  };
}

/** The frame of a turn's event; `done` and `error` are the route's to write, from the result. */
function chatEventFrame(event: ChatEvent): string {
  if (event.type === 'done' || event.type === 'error') return '';
  const { type, ...data } = event;
  return sseEvent(type, data);
}
