import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { readTokensFile } from '../../src/brain/api/tokens-file.js';

/** The first token of an API tokens file (the operator's), read by the brain's own reader. */
export async function firstToken(file: string): Promise<string> {
  const [first] = await readTokensFile(file);
  if (first === undefined) throw new Error(`no token in ${file}`);
  return first.token;
}

/** Writes an API tokens file (mode 0600, its directory 0700) holding `tokens`, in order. */
export async function writeTokensFile(
  file: string,
  tokens: readonly {
    name: string;
    token: string;
    scopes?: readonly string[];
    principal?: string;
    groups?: readonly string[];
  }[],
): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const lines = tokens.map(
    (t) =>
      `  - {name: ${t.name}, token: ${t.token}` +
      (t.scopes === undefined ? '' : `, scopes: [${t.scopes.join(', ')}]`) +
      (t.principal === undefined ? '' : `, principal: ${t.principal}`) +
      (t.groups === undefined ? '' : `, groups: [${t.groups.join(', ')}]`) +
      '}',
  );
  await writeFile(file, `tokens:\n${lines.join('\n')}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
}
