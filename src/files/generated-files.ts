import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest directory above `moduleUrl` holding package.json. */
export function repoRoot(moduleUrl: string): string {
  let dir = dirname(fileURLToPath(moduleUrl));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(moduleUrl)}`);
    dir = parent;
  }
  return dir;
}

/** A file generated from the code: where, and its text given what is there now. */
interface GeneratedFile {
  readonly file: string;
  readonly render: (current: string | undefined) => string;
}

/**
 * Writes each generated file whose text changed, or with `check` only reports the stale ones
 * (for CI), naming `command` as the fix. Returns the exit code: 1 when any file is stale.
 */
export async function writeGenerated(
  root: string,
  files: readonly GeneratedFile[],
  options: { check: boolean; command: string },
): Promise<number> {
  let stale = 0;
  for (const { file, render } of files) {
    const current = await readFile(file, 'utf8').catch(() => undefined);
    const text = render(current);
    const name = relative(root, file);
    if (current === text) continue;
    if (options.check) {
      stale++;
      process.stderr.write(`${name} is stale; run: ${options.command}\n`);
    } else {
      await writeFile(file, text);
      process.stdout.write(`wrote ${name}\n`);
    }
  }
  return stale === 0 ? 0 : 1;
}
