/**
 * Writes docs/configuration.md and config/caesar.example.yaml from the config schema.
 *
 *   node dist/src/config/gen-docs.js           rewrite both files
 *   node dist/src/config/gen-docs.js --check   exit 1 if either is stale (CI)
 */
import { join } from 'node:path';
import { repoRoot, writeGenerated } from '../files/index.js';
import { renderExampleConfig } from './example.js';
import { REGENERATE_COMMAND, renderConfigReference } from './reference.js';

const root = repoRoot(import.meta.url);
process.exitCode = await writeGenerated(
  root,
  [
    { file: join(root, 'docs', 'configuration.md'), render: renderConfigReference },
    { file: join(root, 'config', 'caesar.example.yaml'), render: renderExampleConfig },
  ],
  { check: process.argv.includes('--check'), command: REGENERATE_COMMAND },
);
