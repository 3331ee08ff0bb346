// `caesar up`'s side of the embedded stack. The children's side of the IPC channel is
// `child.ts`, which they import directly so that a child loads none of this.
export { runUp } from './up.js';
export type { UpFlags, UpOutput } from './up.js';
export { Supervisor } from './supervisor.js';
export type { ChildSpec, SupervisorEvents, SupervisorOptions } from './supervisor.js';
export { NatsKeeper } from './nats-keeper.js';
export { mintEmbeddedAuth } from './embedded-auth.js';
export type { EmbeddedAuth } from './embedded-auth.js';
export { parseChildMessage } from './messages.js';
export type {
  BrainReady,
  ChildFatal,
  ChildMessage,
  ParsedChildMessage,
  WorkerReady,
} from './messages.js';
