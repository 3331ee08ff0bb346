import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';

// ADR 0048: the first Intl date formatter or collator a process builds maps ICU's data (about
// 7 MiB of RSS for the date data), so a daemon builds none before the first call that needs
// one. These tests watch the constructors while a daemon's start-up work runs.

type Watched = 'DateTimeFormat' | 'Collator';
const restore: (() => void)[] = [];

/** Counts what Intl's constructor `name` builds, from now until the test ends. */
function watch(name: Watched): { readonly count: number } {
  const original = Intl[name];
  const seen = { count: 0 };
  function Counted(...args: unknown[]): unknown {
    seen.count++;
    return new (original as new (...a: unknown[]) => unknown)(...args);
  }
  Counted.prototype = original.prototype;
  Object.setPrototypeOf(Counted, original); // its statics (supportedLocalesOf)
  Object.defineProperty(Intl, name, { value: Counted, configurable: true, writable: true });
  restore.push(() => Object.defineProperty(Intl, name, { value: original }));
  return seen;
}

// the suite shares one module cache per fork (vitest.config.ts): each test imports fresh
// copies, whose caches (formatters, the collator) start empty as in a new process
beforeEach(() => {
  vi.resetModules();
});

afterEach(() => {
  for (let undo = restore.pop(); undo !== undefined; undo = restore.pop()) undo();
});

describe("ICU's data is asked for by the first use, not at start", () => {
  test("the brain's intents, loaded and their examples checked, build no date formatter", async () => {
    const { loadIntents } = await import('../../src/brain/intents/index.js');
    const { SHIPPED_INTENTS_FILE } = await import('../../src/config/shipped.js');
    const formatters = watch('DateTimeFormat');
    const intents = await loadIntents(SHIPPED_INTENTS_FILE);
    expect(formatters.count).toBe(0);
    // a message with a date, in a real zone, does build one
    intents.match('what is on my calendar tomorrow', {
      now: new Date('2026-03-10T12:00:00Z'),
      timeZone: 'Europe/Berlin',
    });
    expect(formatters.count).toBeGreaterThan(0);
  });

  test("calendar_read's config without timezone asks no zone until a call does", async () => {
    const { CalendarConfigSchema, callTimeZone } =
      await import('../../workers/calendar_read/config.js');
    const formatters = watch('DateTimeFormat');
    const config = CalendarConfigSchema.parse({});
    expect(formatters.count).toBe(0);
    expect(callTimeZone(config)).toBe(new Intl.DateTimeFormat().resolvedOptions().timeZone);
  });

  test('ha_entities builds its name collator with the first search, not at import', async () => {
    const collators = watch('Collator');
    await import('../../workers/ha_entities/index.js');
    const { findEntities } = await import('../../workers/ha_entities/match.js');
    const { buildCandidates } = await import('../../workers/ha_entities/candidates.js');
    expect(collators.count).toBe(0);
    const states = ['light.b', 'light.a'].map((entity_id) => ({
      entity_id,
      state: 'off',
      attributes: {},
    }));
    const found = findEntities(buildCandidates(states, undefined), { domain: 'light' });
    expect(found.matches.map((m) => m.candidate.entityId)).toEqual(['light.a', 'light.b']);
    expect(collators.count).toBe(1);
  });
});
