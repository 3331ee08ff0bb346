import { readYaml, type YamlDocument } from '../text/index.js';
import type { z } from 'zod';
import { placeZodFields } from '../protocol/index.js';
import type { PolicyIssue } from './issues.js';
import { policyWords } from './zod-messages.js';

/** A policy or cases text read by the shared YAML reader, plus zod issues located in it. */
export interface YamlSource extends YamlDocument {
  /** Turns a zod error (paths relative to `base`) into located issues. */
  fromZod(error: z.ZodError, base?: readonly PropertyKey[]): PolicyIssue[];
}

/**
 * Parses one policy (or cases) document with the shared reader (src/text/yaml.ts). Its size
 * is not bounded here: policy files are bounded by `policy.max_file_bytes` when read
 * (load.ts), a setting the operator may raise past the reader's default.
 */
export function parseYamlSource(text: string): YamlSource {
  const doc = readYaml(text, { maxBytes: Number.POSITIVE_INFINITY });
  const fromZod = (error: z.ZodError, base: readonly PropertyKey[] = []) =>
    placeZodFields((...a) => doc.issueAt(...a), error, {
      at: base,
      unionBranch: true,
      words: policyWords,
    });
  return { ...doc, fromZod };
}
