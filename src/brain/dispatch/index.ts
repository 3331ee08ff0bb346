export { createDispatcher } from './client.js';
export type { Dispatcher, DispatchResult } from './client.js';
// Replies bound to their calls (ADR 0060): the daemon gives the dispatcher one.
export { ReplyBinding } from './reply-check.js';
