import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { compilePolicy } from './compile.js';
import type { CompiledPolicy } from './compiled.js';
import { PolicyReadError } from './errors.js';

/** A file's text and the SHA-256 of its exact bytes. */
export interface PolicyText {
  readonly text: string;
  readonly sha256: string;
}

/** Reads a policy file as UTF-8. Throws PolicyReadError (missing, unreadable, not UTF-8). */
export async function readPolicyText(path: string): Promise<PolicyText> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new PolicyReadError(path, err);
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), sha256 };
  } catch (err) {
    throw new PolicyReadError(path, err);
  }
}

/**
 * Reads and compiles a policy file. Throws PolicyReadError or PolicyLoadError; never returns a
 * partly loaded policy.
 */
export async function loadPolicyFile(path: string): Promise<CompiledPolicy> {
  const { text, sha256 } = await readPolicyText(path);
  return compilePolicy(text, { file: path, sha256 });
}
