import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  DEFAULT_SYSTEM_PROMPT,
  PLAN_FIRST_PLAN_RULES,
  PLAN_FIRST_REPLY_RULES,
} from '../../../../src/brain/llm/prompt.js';
import { withClock } from '../../../../src/brain/llm/planner.js';

const root = join(import.meta.dirname, '../../../../');

describe('docs/llm.md', () => {
  test('shows the built-in system prompt exactly as the planner sends it', async () => {
    const doc = await readFile(join(root, 'docs/llm.md'), 'utf8');
    expect(doc).toContain(`\`\`\`text\n${DEFAULT_SYSTEM_PROMPT}\n\`\`\``);
  });

  test('shows the plan_first rules exactly as the planner adds them', async () => {
    const doc = await readFile(join(root, 'docs/llm.md'), 'utf8');
    expect(doc).toContain(`\`\`\`text\n${PLAN_FIRST_PLAN_RULES}\n\`\`\``);
    expect(doc).toContain(`\`\`\`text\n${PLAN_FIRST_REPLY_RULES}\n\`\`\``);
  });
});

describe('the clock line of the system prompt', () => {
  test('names the weekday, local date and time, zone and offset, across a DST change', () => {
    const berlinWinter = withClock('P', new Date('2026-03-28T23:30:00Z'), 'Europe/Berlin');
    expect(berlinWinter).toBe('P\n\nNow: Sunday 2026-03-29 00:30 (Europe/Berlin, UTC+01:00).');
    const berlinSummer = withClock('P', new Date('2026-03-29T10:00:00Z'), 'Europe/Berlin');
    expect(berlinSummer).toBe('P\n\nNow: Sunday 2026-03-29 12:00 (Europe/Berlin, UTC+02:00).');
    expect(withClock('P', new Date('2026-12-01T10:05:00Z'), 'UTC')).toBe(
      'P\n\nNow: Tuesday 2026-12-01 10:05 (UTC, UTC+00:00).',
    );
    expect(withClock('P')).toBe('P');
  });
});
