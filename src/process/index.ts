// Public surface of the process helpers: child processes that must not outlive their parent,
// the compiled script a worker thread or child runs, the one start of every worker thread
// (`startThread`, ADR 0082), who holds a port. node: built-ins only.
export { assertScriptExists, compiledScriptUrl } from './script-url.js';
export { startThread, threadExitText } from './thread.js';
export type { Thread, ThreadExit } from './thread.js';
export { signalGroup, spawnGuarded } from './guarded-spawn.js';
export { portHolder } from './port-holder.js';
