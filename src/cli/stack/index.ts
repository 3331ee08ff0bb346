// `caesar up`'s side of the embedded stack. The children's side of the IPC channel is
// `child.ts`, which they import directly so that a child loads none of this.
export { runUp } from './up.js';
export type { UpFlags } from './up.js';
