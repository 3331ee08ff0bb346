// Public surface of the host helpers: the process and its files (child processes that must
// not outlive their parent, compiled script paths, whether a file may be written, what a
// SQLite failure says, random bytes for the ids every call takes, watching a file an operator
// saves).
// node: built-ins only.
export { assertScriptExists, compiledScriptUrl } from './script-url.js';
export { signalGroup, spawnGuarded } from './guarded-spawn.js';
export { unwritableReason } from './writable.js';
export { repoRoot, writeGenerated } from './generated-files.js';
export { sqliteCodeOf } from './sqlite-code.js';
export { pooledRandomBytes } from './random-pool.js';
export { portHolder } from './port-holder.js';
export { watchFileChanges } from './file-watch.js';
export type { FileChangeWatch } from './file-watch.js';
export { fileExists } from './file-exists.js';
