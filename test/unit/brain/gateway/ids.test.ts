import { describe, expect, test } from 'vitest';
import {
  newConfirmationId,
  newDecisionId,
  traceparentFor,
} from '../../../../src/brain/gateway/ids.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('call ids', () => {
  test('decision ids are UUIDv7, increasing and unique across many pool refills', () => {
    const ids = Array.from({ length: 2_000 }, () => newDecisionId());
    for (const id of ids) expect(id).toMatch(UUID_V7);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  test('a traceparent carries the decision id as trace id and a fresh span id each time', () => {
    const id = newDecisionId();
    const spans = Array.from({ length: 1_000 }, () => traceparentFor(id));
    const traceId = id.replaceAll('-', '');
    for (const t of spans) expect(t).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    expect(new Set(spans).size).toBe(spans.length);
  });
});

test('a confirmation id never starts with "-", which the CLI would read as an option', () => {
  // without the redraw, one id in 64 did: 10,000 draws would hold some 156 such ids
  const ids = Array.from({ length: 10_000 }, () => newConfirmationId());
  expect(ids.filter((id) => id.startsWith('-'))).toEqual([]);
  for (const id of ids.slice(0, 100)) expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
  expect(new Set(ids).size).toBe(ids.length);
});
