import type { FastifyReply } from 'fastify';

/**
 * A signal that fires when the client of `reply` closes its connection before the answer
 * was written (ServerResponse `close` before `end`): the work done for it stops, since
 * nobody is left to read the result. A non-streamed chat turn passes it to the planner, so
 * a model request is aborted at once and never retried for nobody (ADR 0063).
 */
export function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const res = reply.raw;
  res.once('close', () => {
    if (!res.writableEnded) controller.abort(new Error('the client closed the connection'));
  });
  return controller.signal;
}
