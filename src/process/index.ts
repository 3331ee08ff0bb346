// Public surface of the process helpers, the one home of worker threads and child processes
// (ADR 0082): starting a thread and reading how it ended, starting a child (one that must not
// outlive its parent too), running a short command, ending a child with what it started, the
// compiled script a thread or child runs (its bundle when the build made one), the watchdog
// thread, who holds a port. node: built-ins only.
export { assertScriptExists, compiledScriptUrl } from './script-url.js';
export { startThread, threadExitText } from './thread.js';
export type { Thread, ThreadExit } from './thread.js';
export { killTree, runFile, signalGroup, spawnChild } from './spawn.js';
export type { Child, ChildExit, ChildProcess } from './spawn.js';
export { descendantsOf, isAlive, signalEach } from './process-tree.js';
export { heartbeatIntervalMs, startWatchdog } from './watchdog.js';
export { portHolder } from './port-holder.js';
