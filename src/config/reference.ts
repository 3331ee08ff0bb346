import {
  DURATION_UNITS,
  MAX_DURATION_MS,
  SECRET_KEY_FRAGMENTS,
  SECRET_REFERENCE_WORDS,
} from '../text/index.js';

const codeList = (words: readonly string[]): string => words.map((w) => `\`${w}\``).join(', ');
import { MAX_SECRET_FILE_BYTES } from './secret-file.js';
import { defaultText, envText, typeText } from './render-values.js';
import { configTree, type ConfigNode, type ConfigSection } from './walk.js';

/** The command that rewrites the generated files; shown in their headers. */
export const REGENERATE_COMMAND = 'node dist/src/config/gen-docs.js';

const INTRO = `# Configuration reference

<!-- Generated from ConfigSchema (src/config/schema.ts) by \`${REGENERATE_COMMAND}\`. Do not edit by hand: a test fails when this file and the schema disagree. -->

CAESAR reads its settings from four places; each one overrides the ones before it:

1. **Defaults**, listed below. They run everything on one machine, offline, with no edits.
2. **\`caesar.yaml\`**: the file given by \`--config\`, else by \`CAESAR_CONFIG\`, else \`./caesar.yaml\` when it exists. [\`config/caesar.example.yaml\`](../config/caesar.example.yaml) shows every key.
3. **Environment variables** \`CAESAR_<SECTION>__<KEY>\`, such as \`CAESAR_BUS__URL\`.
4. **Command-line flags**, such as \`--nats-url\`.

The commands that look for a running stack (\`legion list\`, \`audit …\`, \`policy …\`) also read \`<data_dir>/runtime.json\`, which \`caesar up\` (or a \`caesar brain\` run alone) writes, between 1 and 2: the running stack's NATS URL (with its operator seed), audit log and policy file ([ADR 0039](adr/0039-cli-seams.md)). Of the servers only \`caesar legion serve-tool\` reads it, when no NATS URL is set above it: it joins that stack under the worker identity the stack minted for its tool (\`tool_seed_files\`), never under the operator's seed.

\`policy.file\` and \`brain.intents_file\` default to \`<data_dir>/policy.yaml\` and \`<data_dir>/intents.yaml\`: on first start \`caesar up\` and \`caesar brain\` copy the package's shipped \`policy/policy.yaml\` and \`config/intents.yaml\` there (never over an existing file) and print both paths, so a stack runs from any directory. Set by \`--policy\`/\`--intents\`, an env var or caesar.yaml (in that order of precedence), the file must exist: a missing one stops the start with an error naming it ([ADR 0056](adr/0056-defaults-in-the-data-dir.md)).

## Rules

- Keys are snake_case. An unknown key is an error naming \`file:line:column\` and the key path. Every problem is reported at once, each with the file position or env var it came from.
- A key with no value (\`token:\`) counts as not set.
- An env var name is \`CAESAR_\` and the key path upper-cased, with \`__\` between levels: \`bus.nkey_seed_file\` is \`CAESAR_BUS__NKEY_SEED_FILE\`, \`tools.web_search.searxng_url\` is \`CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL\`. Values are read as the key's type (integers, booleans as \`true\`/\`false\`/\`1\`/\`0\`, durations, comma-separated URL lists). An empty value unsets the key, so a lower layer's value or the default applies. A \`CAESAR_*\` variable that names no key is an error, except under \`tools\`; \`CAESAR_CONFIG\` names the file and is not a setting.
- Durations: \`500ms\`, \`5s\`, \`1.5m\`, \`2 hours\`, \`1d\` or a number of milliseconds; see [Durations](#durations).
- Relative paths in \`caesar.yaml\` are resolved against the file's own directory; relative paths from environment variables and flags, and the defaults, against the working directory.
- At most one of \`bus.nkey_seed_file\`, \`bus.creds_file\` and \`bus.token\` may be set in one source; the highest source that sets one of them decides the auth method (a \`--creds-file\` flag replaces an NKEY seed named in \`caesar.yaml\`).
- Secrets are the keys the one secret rule names ([security.md](security.md#secrets)): every key marked (secret) below, and in tool sections any key holding ${codeList(SECRET_KEY_FRAGMENTS)} (\`_\`, \`-\` and case ignored: \`access_token\`, \`brave_api_key\`, \`client_secret\`), except a path to where a secret is kept (last word ${codeList(SECRET_REFERENCE_WORDS)}: \`token_file\`) and a limit or count (\`max_tokens\`). They are replaced with \`[redacted]\` whenever the config is printed (\`caesar config show\`). Keep them out of \`caesar.yaml\`: set them by env var, or from a file as below.

## Durations

One grammar for every duration CAESAR reads: in \`caesar.yaml\`, env vars and flags, and in the policy (\`rate_limit\` windows, the cases' \`advance\`; [policy.md](policy.md#rate_limit)). [ADR 0043](adr/0043-one-duration-grammar.md) records why.

- A count and a unit, with or without a space: \`500ms\`, \`5s\`, \`1.5m\`, \`2 hours\`, \`1d\`. The units, lower-case: ${DURATION_UNITS.map((u) => `\`${u}\``).join(', ')}.
- A unit word alone means one of it: \`second\`, \`minute\`, \`hour\`, \`day\` (and \`sec\`, \`min\`). A lone letter such as \`m\` is refused as a likely typo.
- Fractions round to whole milliseconds (\`0.5s\` is 500 ms). Negative values and exponents (\`1e3\`) are refused.
- A bare number (\`250\`, as a YAML number or an env var of digits) is milliseconds in settings, as existing files and the reference CAESAR's env vars write it. The policy refuses it as ambiguous: \`per: 60\` must say \`60s\` or \`60ms\`.
- At most ${MAX_DURATION_MS} ms (about 24.8 days), the longest a Node timer waits. A policy rate-limit window is at most \`30d\` instead, and a case's \`advance\` may move the test clock further: neither is waited on.
- \`caesar config show\` prints a duration in the largest unit that divides it: \`30s\`, \`2m\`, \`1d\`, \`1500ms\`.

## Secrets from files

For every secret key, \`CAESAR_<KEY>_FILE\` names a file that holds its value, such as a Docker or Kubernetes secret: \`CAESAR_BUS__TOKEN_FILE=/run/secrets/nats_token\` sets \`bus.token\`. Under \`tools\`, \`<KEY>_FILE\` reads a file when \`<KEY>\` is a secret key under that rule: \`CAESAR_TOOLS__WEB_SEARCH__BRAVE_API_KEY_FILE\` sets \`tools.web_search.brave_api_key\`.

- A name that is itself a key stays that key: \`CAESAR_BUS__NKEY_SEED_FILE\` sets \`bus.nkey_seed_file\` (a path), and under \`tools\` \`CAESAR_TOOLS__<TOOL>__CA_FILE\` sets \`tools.<tool>.ca_file\` (\`ca\` is no secret).
- The file is read as UTF-8 and one trailing line ending is dropped. An empty file, a file over ${MAX_SECRET_FILE_BYTES / 1024} KiB, a missing or unreadable file, or one that is not a regular file is an error naming the variable and the path. A relative path resolves against the working directory; an empty variable unsets the key.
- Setting both \`CAESAR_X\` and \`CAESAR_X_FILE\` is an error naming both. \`_FILE\` works in the environment only, not in \`caesar.yaml\`.
- The value never appears in an error, a log or \`caesar config show\`, which names the variable and the file as the source.`;

/** docs/configuration.md, rendered from {@link ConfigSchema}. */
export function renderConfigReference(): string {
  const root = configTree();
  const topFields = root.children.filter((c) => c.type === 'field');
  const sections = root.children.filter((c) => c.type !== 'field');
  const parts = [INTRO, '## Top level', ...topFields.map(renderKey)];
  for (const section of sections) parts.push(...renderSection(section));
  return `${parts.join('\n\n')}\n`;
}

function renderSection(section: ConfigSection): string[] {
  const head = `## \`${section.path.join('.')}\`\n\n${section.description}`;
  const fields = section.children.filter((c) => c.type === 'field');
  const nested = section.children.filter((c): c is ConfigSection => c.type !== 'field');
  const top = section.type === 'map' ? `${head}\n\n${facts(section)}` : head;
  return [top, ...fields.map(renderKey), ...nested.flatMap(renderSection)];
}

function renderKey(node: ConfigNode): string {
  return `### \`${node.path.join('.')}\`\n\n${node.description}\n\n${facts(node)}`;
}

function facts(node: ConfigNode): string {
  const isSecret = node.type === 'field' && node.meta.secret === true;
  const fromFile = isSecret ? `, or \`${envText(node)}_FILE\` naming a file that holds it` : '';
  const lines = [
    `- Type: ${typeText(node)}${isSecret ? ' (secret)' : ''}`,
    `- Default: ${defaultText(node) ?? 'not set'}`,
    `- Env: \`${envText(node)}\`${fromFile}`,
  ];
  return lines.join('\n');
}
