import { describe, expect, test } from 'vitest';
import { haMessage, parseJson } from '../../../../src/clients/home-assistant/client.js';
import type { HttpReply } from '../../../../src/legion/index.js';

// Issue 30: Home Assistant's answers are text from outside, read with the one JSON ladder.

const reply = (text: string, status = 200): HttpReply => ({
  status,
  headers: { 'content-type': 'application/json' },
  text,
  where: 'http://ha.test:8123/api/states',
});

describe('parseJson', () => {
  test('a JSON answer is its value', () => {
    expect(parseJson(reply('[{"entity_id":"light.desk"}]'), 'the states')).toEqual([
      { entity_id: 'light.desk' },
    ]);
  });

  test('an answer that is not JSON asks whether ha.url is Home Assistant', () => {
    expect(() => parseJson(reply('<html>'), 'the states')).toThrow(
      /answered the states with something that is not JSON \(HTTP 200\); is CAESAR_HA__URL \(ha\.url\) the address/,
    );
  });

  test('an answer with a prototype key, or nested past the bound, is refused, saying which', () => {
    expect(() => parseJson(reply('[{"__proto__":{"state":"on"}}]'), 'the states')).toThrow(
      /answered the states with a body that is JSON with a `__proto__` key at \[0\]\.__proto__/,
    );
    const deep = `${'['.repeat(65)}${']'.repeat(65)}`;
    expect(() => parseJson(reply(deep), 'the states')).toThrow(
      /answered the states with a body that is nested deeper than 64 levels/,
    );
  });
});

describe('haMessage', () => {
  test("Home Assistant's own message, or the plain text", () => {
    expect(haMessage(reply('{"message":"Service not found."}', 400))).toBe('Service not found.');
    expect(haMessage(reply('400: Bad Request', 400))).toBe('400: Bad Request');
  });
});
