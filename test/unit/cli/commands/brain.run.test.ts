import { describe, expect, test } from 'vitest';
import { expectedTools } from '../../../../src/cli/commands/brain.run.js';

describe('caesar brain --expect-tools', () => {
  test('comma-separated tool names, spaces and empty entries dropped', () => {
    expect(expectedTools('calculator, web_search,,home_assistant')).toEqual([
      'calculator',
      'web_search',
      'home_assistant',
    ]);
    expect(expectedTools(undefined)).toEqual([]);
    expect(expectedTools('')).toEqual([]);
  });

  test('an entry that is not a tool name is refused, named with the flag', () => {
    expect(() => expectedTools('calculator,Web Search')).toThrow(
      '--expect-tools: "Web Search" is not a tool name (^[a-z][a-z0-9_]{0,63}$)',
    );
    // an action's full name is not a tool name: the tool's name stands for its actions
    expect(() => expectedTools('home_assistant.entities')).toThrow(/is not a tool name/);
  });
});
