import { readYaml, type YamlDocument } from '../text/index.js';
import type { z } from 'zod';
import type { PolicyIssue } from './issues.js';
import { describeZodIssue } from './zod-messages.js';

/** A policy or cases text read by the shared YAML reader, plus zod issues located in it. */
export interface YamlSource extends YamlDocument {
  /** Turns zod issues (paths relative to `base`) into located issues. */
  fromZod(issues: readonly z.core.$ZodIssue[], base?: readonly PropertyKey[]): PolicyIssue[];
}

/**
 * Parses one policy (or cases) document with the shared reader (src/text/yaml.ts). Its size
 * is not bounded here: policy files are bounded by `policy.max_file_bytes` when read
 * (load.ts), a setting the operator may raise past the reader's default.
 */
export function parseYamlSource(text: string): YamlSource {
  const doc = readYaml(text, { maxBytes: Number.POSITIVE_INFINITY });
  const fromZod = (issues: readonly z.core.$ZodIssue[], base: readonly PropertyKey[] = []) =>
    issues.flatMap((issue) =>
      describeZodIssue(issue).map((d) => doc.issueAt([...base, ...issue.path], d.message, d.key)),
    );
  return { ...doc, fromZod };
}
