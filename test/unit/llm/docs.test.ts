import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEFAULT_SYSTEM_PROMPT } from '../../../src/brain/llm/index.js';

const root = join(import.meta.dirname, '../../../');

describe('docs/llm.md', () => {
  test('shows the built-in system prompt exactly as the planner sends it', async () => {
    const doc = await readFile(join(root, 'docs/llm.md'), 'utf8');
    expect(doc).toContain(`\`\`\`text\n${DEFAULT_SYSTEM_PROMPT}\n\`\`\``);
  });
});
