// Public surface of the file helpers: the process's data files (whether a file may be written,
// what a SQLite failure says, watching a file an operator saves, generated docs).
// node: built-ins only.
export { unwritableReason } from './writable.js';
export { repoRoot, writeGenerated } from './generated-files.js';
export { sqliteCodeOf } from './sqlite-code.js';
export { watchFileChanges } from './file-watch.js';
export type { FileChangeWatch } from './file-watch.js';
export { fileExists } from './file-exists.js';
export { writeFileAtomic } from './atomic-write.js';
