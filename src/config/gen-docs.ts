/**
 * Writes docs/configuration.md and config/caesar.example.yaml from the config schema.
 *
 *   node dist/src/config/gen-docs.js           rewrite both files
 *   node dist/src/config/gen-docs.js --check   exit 1 if either is stale (CI)
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderExampleConfig } from './example.js';
import { renderConfigReference } from './reference.js';

/** The repository root: the nearest directory above this file holding package.json. */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('gen-docs: no package.json above this script');
    dir = parent;
  }
  return dir;
}

async function main(check: boolean): Promise<number> {
  const root = repoRoot();
  const outputs = [
    { file: join(root, 'docs', 'configuration.md'), text: renderConfigReference() },
    { file: join(root, 'config', 'caesar.example.yaml'), text: renderExampleConfig() },
  ];
  let stale = 0;
  for (const { file, text } of outputs) {
    const current = await readFile(file, 'utf8').catch(() => undefined);
    const name = relative(root, file);
    if (current === text) continue;
    if (check) {
      stale++;
      process.stderr.write(`${name} is stale; run: node dist/src/config/gen-docs.js\n`);
    } else {
      await writeFile(file, text);
      process.stdout.write(`wrote ${name}\n`);
    }
  }
  return stale === 0 ? 0 : 1;
}

process.exitCode = await main(process.argv.includes('--check'));
