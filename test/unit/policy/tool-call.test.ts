import { describe, expect, test } from 'vitest';
import {
  CALL_SERVICE_TOOL,
  InvalidToolCallError,
  isGenericToolCall,
  toServiceCall,
} from '../../../src/policy/index.js';

describe('toServiceCall', () => {
  test('turns a call_service input into a ServiceCall', () => {
    const input = {
      domain: 'light',
      service: 'turn_on',
      target: { entity_id: ['light.kitchen'], area_id: 'hall' },
      data: { brightness_pct: 40 },
    };
    expect(toServiceCall(input)).toEqual(input);
  });

  test('target and data are optional', () => {
    expect(toServiceCall({ domain: 'scene', service: 'turn_on' })).toEqual({
      domain: 'scene',
      service: 'turn_on',
    });
  });

  test.each([
    ['not an object', 'light.turn_on', /expected object/],
    ['no domain', { service: 'turn_on' }, /^invalid call_service input: domain: /],
    ['an empty service', { domain: 'light', service: '' }, /service: /],
    ['an unknown key', { domain: 'light', service: 'turn_on', service_data: {} }, /service_data/],
    [
      'an unknown target selector',
      { domain: 'light', service: 'turn_on', target: { zone: 'x' } },
      /zone/,
    ],
    [
      'a non-string selector',
      { domain: 'light', service: 'turn_on', target: { entity_id: 5 } },
      /target.entity_id/,
    ],
    ['data that is a list', { domain: 'light', service: 'turn_on', data: [1] }, /data/],
  ])('refuses %s with InvalidToolCallError (invalid_input)', (_name, input, message) => {
    let caught: unknown;
    try {
      toServiceCall(input);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidToolCallError);
    expect(caught).toMatchObject({
      code: 'invalid_input',
      tool: CALL_SERVICE_TOOL,
      retryable: false,
    });
    expect((caught as Error).message).toMatch(message);
  });

  test('isGenericToolCall tells the two call shapes apart', () => {
    expect(isGenericToolCall({ tool: 'calculator', input: {} })).toBe(true);
    expect(isGenericToolCall({ domain: 'light', service: 'turn_on' })).toBe(false);
  });
});
