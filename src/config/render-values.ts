import type { ConfigNode } from './walk.js';

/** The type of a key, in words: `duration`, ``one of `info`, `debug` ``. */
export function typeText(node: ConfigNode): string {
  if (node.type !== 'field')
    return node.type === 'map' ? 'map of tool name to settings' : 'section';
  switch (node.kind) {
    case 'enum':
      return `one of ${(node.options ?? []).map((o) => `\`${o}\``).join(', ')}`;
    case 'url-list':
      return 'URL list';
    case 'list':
      return 'list (comma-separated in an env var)';
    default:
      return node.kind;
  }
}

/** The default in words, with code in backticks; `undefined` when the key has none. */
export function defaultText(node: ConfigNode): string | undefined {
  if (node.type === 'field' && node.meta.defaultText !== undefined) return node.meta.defaultText;
  if (!('default' in node)) return undefined;
  return `\`${JSON.stringify(node.default).replace(/^"(.*)"$/, '$1')}\``;
}

/** An env var name as the generated docs may print it: `CAESAR_` and upper-case key words. */
const ENV_NAME = /^CAESAR_[A-Z0-9]+(?:_{1,2}[A-Z0-9]+)*$/;

/**
 * Env var of a key; tool sections take any key below a tool. A name that is not
 * `[A-Z0-9_]+` stops the generator, so a value can never be spliced into a name in the docs
 * (issue 29: docs/llm.md once listed the whole system prompt as an env var).
 */
export function envText(node: ConfigNode): string {
  if (!ENV_NAME.test(node.env)) {
    throw new Error(
      `config docs: key '${node.path.join('.').slice(0, 80)}' renders as env var ` +
        `${JSON.stringify(node.env.slice(0, 80))}, which is not CAESAR_ and [A-Z0-9_]+`,
    );
  }
  return node.type === 'map' ? `${node.env}__<TOOL>__<KEY>` : node.env;
}

/** Splits text into lines of at most `width` characters (words never break). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}
