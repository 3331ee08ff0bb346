export { createDispatcher } from './client.js';
export type { Dispatcher, DispatcherOptions, DispatchOptions } from './client.js';
