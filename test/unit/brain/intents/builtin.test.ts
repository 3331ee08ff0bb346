import { describe, expect, test } from 'vitest';
import { matchBuiltin, type BuiltinKind } from '../../../../src/brain/intents/index.js';

// Issue 29, point 4: with no model, "hello", "what time is it" and "what can you do" all got
// the same wall of setup text. The brain now knows these phrases and answers each itself.

describe('the phrases the brain answers itself without a model', () => {
  test.each<[string, BuiltinKind]>([
    ['hello', 'greeting'],
    ['Hi!', 'greeting'],
    ['hey caesar', 'greeting'],
    ['Hey, Caesar.', 'greeting'],
    ['good morning', 'greeting'],
    ['Good evening Caesar', 'greeting'],
    ['hi there', 'greeting'],
    ['how are you?', 'greeting'],
    ['what time is it', 'time'],
    ['What time is it?', 'time'],
    ["what's the time", 'time'],
    ['What’s the time now?', 'time'],
    ['hey caesar, what time is it', 'time'],
    ['can you tell me the time please', 'time'],
    ['time', 'time'],
    ["what's the date", 'date'],
    ['what is the date today', 'date'],
    ['what day is it today', 'date'],
    ['What day is it?', 'date'],
    ["what's today's date", 'date'],
    ['which day of the week is it', 'date'],
    ['what can you do', 'help'],
    ['What can you do?', 'help'],
    ['help', 'help'],
    ['hey caesar what can you help me with', 'help'],
    ['what can i ask you', 'help'],
    ['show me your commands', 'help'],
  ])('%j is %s', (message, kind) => {
    expect(matchBuiltin(message)).toBe(kind);
  });

  test.each([
    'what is 17 * 23',
    "what's on my calendar today",
    'what time is it in Tokyo',
    'help me write a poem',
    'hello world program in rust',
    'what is the time complexity of quicksort',
    'search for the date of the moon landing',
    '',
    '   ',
    `hello ${'caesar '.repeat(40)}`,
  ])('%j is none of them (a rule or the model answers it)', (message) => {
    expect(matchBuiltin(message)).toBeUndefined();
  });
});
