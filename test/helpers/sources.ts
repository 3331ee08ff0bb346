import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The repository root. */
export const ROOT = join(import.meta.dirname, '../..');

/** Every TypeScript file under `dir` (relative to the root), as root-relative paths. */
export function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** The product's own sources (src/ and workers/), each with its text. */
export function productSources(): { file: string; text: string }[] {
  return [...sources('src'), ...sources('workers')].map((file) => ({
    file,
    text: readFileSync(join(ROOT, file), 'utf8'),
  }));
}
