import { describe, expect, test } from 'vitest';
import {
  errorTextOfMcp,
  MCP_RESULT_LIMITS,
  resultOfMcp,
} from '../../../../src/legion/mcp/result.js';

describe("an MCP tool's answer as a result", () => {
  test('text, structured content and links are kept; binary data is only described', () => {
    const r = resultOfMcp({
      content: [
        { type: 'text', text: 'hi' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'resource_link', uri: 'file:///a', name: 'a' },
        { type: 'resource', resource: { uri: 'file:///b', blob: 'AAAAAAAA', mimeType: 'x/y' } },
      ],
      structuredContent: { n: 1 },
    });
    expect(r).toEqual({
      content: [
        { type: 'text', text: 'hi' },
        { type: 'image', mime_type: 'image/png', bytes: 3 },
        { type: 'resource_link', uri: 'file:///a', name: 'a' },
        { type: 'resource', uri: 'file:///b', mime_type: 'x/y', bytes: 6 },
      ],
      structured_content: { n: 1 },
    });
  });

  test('is bounded in blocks and in text, and says it was cut', () => {
    const many = Array.from({ length: 70 }, () => ({ type: 'text' as const, text: 'x' }));
    const r = resultOfMcp({ content: many });
    expect(r.content).toHaveLength(MCP_RESULT_LIMITS.blocks);
    expect(r.truncated).toBe(true);
    const huge = resultOfMcp({
      content: [{ type: 'text', text: 'y'.repeat(MCP_RESULT_LIMITS.textChars + 10) }],
    });
    expect(huge.content[0]?.text).toHaveLength(MCP_RESULT_LIMITS.textChars);
    expect(huge.truncated).toBe(true);
  });

  test("an error answer's words are one bounded line", () => {
    expect(errorTextOfMcp({ content: [{ type: 'text', text: 'Access\n denied' }] })).toBe(
      'Access denied',
    );
    expect(errorTextOfMcp({ content: [] })).toBe('the server gave no reason');
  });
});
