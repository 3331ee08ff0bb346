/**
 * Writes the tables of docs/errors.md from the error catalogue.
 *
 *   node dist/src/errors/gen-docs.js           rewrite them
 *   node dist/src/errors/gen-docs.js --check   exit 1 if they are stale (CI)
 */
import { join } from 'node:path';
import { repoRoot, writeGenerated } from '../files/index.js';
import { ERRORS_REGENERATE_COMMAND, renderErrorsDoc } from './reference.js';

const root = repoRoot(import.meta.url);
process.exitCode = await writeGenerated(
  root,
  [{ file: join(root, 'docs', 'errors.md'), render: renderErrorsDoc }],
  { check: process.argv.includes('--check'), command: ERRORS_REGENERATE_COMMAND },
);
