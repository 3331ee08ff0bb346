export { createDispatcher } from './client.js';
export type { Dispatcher } from './client.js';
