import { describe, expect, test } from 'vitest';
import { actionNameOf, mapToolNames, pickTools } from '../../../../src/legion/mcp/names.js';

describe("an MCP tool's name as an action name", () => {
  test.each([
    ['read_file', 'read_file'],
    ['readFile', 'read_file'],
    ['getHTTPStatus', 'get_http_status'],
    ['get-sum', 'get_sum'],
    ['trigger-long-running-operation', 'trigger_long_running_operation'],
    ['Search.Files', 'search_files'],
    ['list  dirs!!', 'list_dirs'],
    ['__private__', 'private'],
    ['2fa', 't_2fa'],
    ['über', 'ber'],
    ['---', ''],
  ])('%j -> %j', (mcp, action) => {
    expect(actionNameOf(mcp)).toBe(action);
  });
});

describe('mapping a server tool list', () => {
  test('keeps the MCP name beside the action name, in the server order', () => {
    expect(mapToolNames('demo', ['get-sum', 'echo'])).toEqual({
      ok: true,
      names: [
        { mcp: 'get-sum', action: 'get_sum' },
        { mcp: 'echo', action: 'echo' },
      ],
    });
  });

  test('refuses two tools that map to one action, naming both and the flag', () => {
    const r = mapToolNames('demo', ['readFile', 'read-file']);
    expect(r).toEqual({
      ok: false,
      problems: [
        `tools "readFile" and "read-file" would both be 'demo.read_file': leave one out with --tools`,
      ],
    });
  });

  test('refuses a callable longer than 64 characters and a name with nothing usable', () => {
    const long = 'x'.repeat(60);
    const r = mapToolNames('demo', [long, '???', 'ok']);
    expect(r.ok).toBe(false);
    const problems = r.ok ? [] : r.problems;
    expect(problems[0]).toMatch(/longer than 64 characters: .* --tools$/);
    expect(problems[1]).toBe('tool "???" has no usable name (1-128 characters, letters first)');
  });

  test('refuses more than 16 tools, saying to pick with --tools', () => {
    const r = mapToolNames(
      'big',
      Array.from({ length: 17 }, (_, i) => `tool${i}`),
    );
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.problems.at(-1)).toMatch(
      /^it serves 17 tools, more than the 16 actions one tool may have: pick at most 16 with --tools a,b/,
    );
  });

  test('a name from outside is quoted and escaped in the words', () => {
    const r = mapToolNames('demo', ['a\u001b', 'a']);
    expect(r.ok ? '' : r.problems[0]).toContain('"a\\u001b" and "a" would both be');
  });
});

describe('--tools', () => {
  test('picks by MCP name or action name, in the server order, and names the unknown', () => {
    expect(pickTools(['get-sum', 'echo', 'get-env'], ['echo', 'get_sum', 'nope'])).toEqual({
      kept: ['get-sum', 'echo'],
      unknown: ['nope'],
    });
    expect(pickTools(['a', 'b'], undefined)).toEqual({ kept: ['a', 'b'], unknown: [] });
  });
});
