import { readTokensFile } from '../../src/brain/api/tokens-file.js';

/** The first token of an API tokens file (the operator's), read by the brain's own reader. */
export async function firstToken(file: string): Promise<string> {
  const [first] = await readTokensFile(file);
  if (first === undefined) throw new Error(`no token in ${file}`);
  return first.token;
}
