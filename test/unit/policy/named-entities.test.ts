import { describe, expect, test } from 'vitest';
import { policyOf } from './helpers.js';

describe('namedEntities: the entity ids a policy names literally', () => {
  test('allowed service targets and entity rules, sorted, each once; globs and all left out', () => {
    const policy = policyOf(`
version: 1
allowed_services:
  - light.turn_on
  - service: light.turn_off
    target:
      entity_id: [light.kitchen, light.hall_*, all]
  - service: switch.turn_on
    target:
      entity_id: switch.fan
      area_id: [kitchen]
denied_services:
  - service: lock.unlock
    target:
      entity_id: [lock.back_door]
denied_entities:
  - lock.*
  - entity_id: [switch.fridge, light.kitchen]
`);
    expect(policy.namedEntities).toEqual(['light.kitchen', 'switch.fan', 'switch.fridge']);
  });

  test('a policy that names no entity names none', () => {
    expect(policyOf('version: 1\nallowed_tools: [calculator]\n').namedEntities).toEqual([]);
  });
});
