import { expect, test } from 'vitest';
import { toolListChanges } from '../../../../src/legion/mcp/tool-list.js';

const tool = (name: string, description = 'd') => ({
  name,
  description,
  inputSchema: { type: 'object' as const },
});

test('the same list is no change; an added, removed or changed tool is named', () => {
  expect(toolListChanges([tool('a')], [tool('a')])).toBeUndefined();
  const text = toolListChanges([tool('a'), tool('b')], [tool('a', 'new'), tool('c')]);
  expect(text).toBe(
    `the MCP server's tools changed since serve-mcp started (added "c"; removed "b"; changed "a"): ` +
      'the tools served are still the ones it listed then; restart serve-mcp to serve the new list',
  );
});

test('with --tools, or for a tool left out at start, an added tool is no change', () => {
  expect(toolListChanges([tool('a')], [tool('a'), tool('c')], { picked: true })).toBeUndefined();
  expect(toolListChanges([tool('a')], [tool('a'), tool('t')], { unserved: ['t'] })).toBeUndefined();
});
