import { describe, expect, test } from 'vitest';
import type { HaState, Registry } from '../../../src/clients/home-assistant/index.js';
import { buildCandidates } from '../../../workers/ha_entities/candidates.js';
import { findEntities } from '../../../workers/ha_entities/match.js';
import { normalise, queryWords, words } from '../../../workers/ha_entities/words.js';

const state = (entity_id: string, friendly_name?: string, s = 'off'): HaState => ({
  entity_id,
  state: s,
  attributes: friendly_name === undefined ? {} : { friendly_name },
});

const find = (states: HaState[], query?: string, domain?: string, registry?: Registry) =>
  findEntities(buildCandidates(states, registry), { query, domain });

const summary = (found: ReturnType<typeof find>) => ({
  matches: found.matches.map((m) => `${m.candidate.entityId}:${m.kind}`),
  resolved: found.resolved?.entityId ?? null,
  ambiguous: found.ambiguous,
});

describe('normalisation', () => {
  test.each([
    ['The Kitchen-Light!', ['the', 'kitchen', 'light']],
    ['kitchen_light', ['kitchen', 'light']],
    ['Café  Crème', ['cafe', 'creme']],
    ["Kid's Room", ['kids', 'room']],
    ['light.kitchen', ['light', 'kitchen']],
    ['  ', []],
  ])('words(%j) = %j', (text, expected) => {
    expect(words(text)).toEqual(expected);
  });

  test('spoken filler is dropped unless nothing else is left', () => {
    expect(queryWords('turn on my the lamp')).toEqual(['turn', 'on', 'lamp']);
    expect(queryWords('the')).toEqual(['the']);
    expect(normalise('ÉTÉ  room')).toBe('ete room');
  });
});

describe('matching', () => {
  test.each([['Kitchen'], ['Kitchen Light'], ['kitchen light']])(
    '"kitchen" finds light.kitchen named %j exactly',
    (name) => {
      const found = find(
        [state('light.kitchen', name), state('sensor.kitchen_temp', 'Kitchen Temp')],
        'kitchen',
      );
      expect(found.resolved?.entityId).toBe('light.kitchen');
      expect(found.matches[0]).toMatchObject({ kind: 'exact' });
    },
  );

  test('"kitchen light" finds the light named "Kitchen", not the switch named "Kitchen"', () => {
    const states = [
      state('light.kitchen', 'Kitchen'),
      state('switch.kitchen_plug', 'Kitchen Plug'),
    ];
    expect(summary(find(states, 'the kitchen light'))).toEqual({
      matches: ['light.kitchen:exact'],
      resolved: 'light.kitchen',
      ambiguous: false,
    });
  });

  test('"Kitchen Ceiling" and "Kitchen Counter" for "kitchen": ambiguous', () => {
    const states = [state('light.a', 'Kitchen Ceiling'), state('light.b', 'Kitchen Counter')];
    expect(summary(find(states, 'kitchen'))).toEqual({
      matches: ['light.a:partial', 'light.b:partial'],
      resolved: null,
      ambiguous: true,
    });
  });

  test('...unless one of them matches exactly', () => {
    const states = [
      state('light.a', 'Kitchen Ceiling'),
      state('light.b', 'Kitchen Counter'),
      state('light.c', 'Kitchen'),
    ];
    expect(summary(find(states, 'kitchen'))).toEqual({
      matches: ['light.c:exact', 'light.a:partial', 'light.b:partial'],
      resolved: 'light.c',
      ambiguous: false,
    });
  });

  test('two exact matches in different domains are ambiguous; a domain settles it', () => {
    const states = [state('light.kitchen', 'Kitchen'), state('switch.kitchen', 'Kitchen')];
    expect(summary(find(states, 'kitchen'))).toMatchObject({ resolved: null, ambiguous: true });
    expect(summary(find(states, 'kitchen', 'switch'))).toEqual({
      matches: ['switch.kitchen:exact'],
      resolved: 'switch.kitchen',
      ambiguous: false,
    });
  });

  test('partial matches rank by how much of the name the query covers', () => {
    const states = [
      state('light.a', 'Kitchen Ceiling Spot Left'),
      state('light.b', 'Kitchen Ceiling'),
    ];
    expect(summary(find(states, 'ceiling')).matches).toEqual([
      'light.b:partial',
      'light.a:partial',
    ]);
  });

  test('word prefixes of three letters or more match partially; shorter ones do not', () => {
    const states = [state('light.kitchen', 'Kitchen Light')];
    expect(summary(find(states, 'kit')).matches).toEqual(['light.kitchen:partial']);
    expect(summary(find(states, 'ki')).matches).toEqual([]);
  });

  test('an entity without a friendly name is named by its object id', () => {
    const found = find([state('light.garden_path')], 'garden path');
    expect(found.resolved?.name).toBe('garden path');
  });

  test('aliases and areas come from the registry', () => {
    const area = { id: 'kitchen', name: 'Kitchen', aliases: [] };
    const registry: Registry = {
      areas: new Map([['kitchen', area]]),
      areaOf: (id) => (id === 'light.c1' ? area : undefined),
      aliasesOf: (id) => (id === 'light.c1' ? ['Big Light'] : []),
      aliasesAvailable: true,
      counts: { entities: 1, devices: 0, areas: 1 },
    };
    const states = [state('light.c1', 'Ceiling'), state('light.c2', 'Ceiling')];
    expect(summary(find(states, 'big light', undefined, registry))).toMatchObject({
      matches: ['light.c1:alias'],
      resolved: 'light.c1',
    });
    // "<area> <name>" is an exact form: "kitchen ceiling" tells the two apart
    expect(summary(find(states, 'kitchen ceiling', undefined, registry))).toMatchObject({
      matches: ['light.c1:exact'],
      resolved: 'light.c1',
    });
  });

  test('without a query every filtered entity is listed; one alone resolves', () => {
    const states = [state('light.a', 'A'), state('switch.b', 'B')];
    expect(summary(find(states, undefined, 'switch'))).toEqual({
      matches: ['switch.b:listed'],
      resolved: 'switch.b',
      ambiguous: false,
    });
    expect(summary(find(states))).toMatchObject({ resolved: null, ambiguous: true });
  });
});
