import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A temp directory for one test; `write` puts a file in it, `[Symbol.asyncDispose]` removes it. */
export interface TempDir extends AsyncDisposable {
  readonly path: string;
  write(name: string, text: string): Promise<string>;
}

export async function tempDir(): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), 'caesar-config-'));
  return {
    path,
    async write(name, text) {
      const file = join(path, name);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, text);
      return file;
    },
    async [Symbol.asyncDispose]() {
      await rm(path, { recursive: true, force: true });
    },
  };
}
