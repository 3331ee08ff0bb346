import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { describe, expect, test } from 'vitest';
import { renderConfigReference } from '../../../src/config/reference.js';
import { renderExampleConfig } from '../../../src/config/example.js';
import { envText } from '../../../src/config/render-values.js';
import { configNodes, configTree } from '../../../src/config/walk.js';

const root = join(import.meta.dirname, '../../../');

/** What `npm run format` would make of `text` if it were the file at `file`. */
async function prettierFormat(file: string, text: string): Promise<string> {
  const options = (await resolveConfig(file)) ?? {};
  return format(text, { ...options, filepath: file });
}

describe.each([
  { file: 'docs/configuration.md', render: renderConfigReference },
  { file: 'config/caesar.example.yaml', render: renderExampleConfig },
])('$file', ({ file, render }) => {
  test('matches the schema (regenerate: node dist/src/config/gen-docs.js)', async () => {
    expect(await readFile(join(root, file), 'utf8')).toBe(render());
  });

  test('is already prettier-formatted, so `npm run format` cannot make it drift', async () => {
    const text = render();
    expect(await prettierFormat(join(root, file), text)).toBe(text);
  });
});

describe('ConfigSchema', () => {
  test('every section and key has a description', () => {
    const undocumented = configNodes()
      .filter((n) => n.description.trim() === '')
      .map((n) => n.path.join('.'));
    expect(undocumented).toEqual([]);
    expect(configTree().description).not.toBe('');
  });

  test('every key is in the reference with its env var', () => {
    const doc = renderConfigReference();
    for (const node of configNodes()) {
      expect(doc).toContain(`\`${node.path.join('.')}\``);
      expect(doc).toContain(node.env);
    }
  });

  test('env var names follow CAESAR_<SECTION>__<KEY>', () => {
    const names = configNodes()
      .filter((n) => n.type === 'field')
      .map((n) => n.env);
    expect(names).toContain('CAESAR_DATA_DIR');
    expect(names).toContain('CAESAR_BUS__NKEY_SEED_FILE');
    expect(names).toContain('CAESAR_LOG__LEVEL');
    expect(names).toContain('CAESAR_EMBEDDED__NATS_PORT');
  });

  test('the generator refuses to print a name with a value spliced into it (issue 29)', () => {
    const field = configNodes().find((n) => n.env === 'CAESAR_LLM__SYSTEM_PROMPT');
    expect(field).toBeDefined();
    expect(envText(field!)).toBe('CAESAR_LLM__SYSTEM_PROMPT');
    const spliced = { ...field!, env: 'CAESAR_LLM__SYSTEM_You are CAESAR, a home assistant' };
    expect(() => envText(spliced)).toThrow(
      /key 'llm.system_prompt' renders as env var "CAESAR_LLM__SYSTEM_You are CAESAR, a home assistant", which is not CAESAR_ and \[A-Z0-9_\]\+/,
    );
    expect(() => envText({ ...field!, env: 'CAESAR_LLM__system_prompt' })).toThrow(/not CAESAR_/);
    expect(() => envText({ ...field!, env: 'CAESAR_LLM____X' })).toThrow(/not CAESAR_/);
  });
});
