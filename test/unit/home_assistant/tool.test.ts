import { describe, expect, test } from 'vitest';
import { callablesOf } from '../../../src/legion/actions.js';
import {
  canonicalCallable,
  HA_CALL_SERVICE,
  HA_ENTITIES,
  isServiceCallTool,
  servedName,
} from '../../../src/protocol/index.js';
import { otherHaName } from '../../../src/protocol/call-service.js';
import { callServiceTool } from '../../../workers/call_service/index.js';
import { haEntitiesTool } from '../../../workers/ha_entities/index.js';
import { homeAssistantTool } from '../../../workers/home_assistant/index.js';
import {
  defaultToolNames,
  deprecatedToolNote,
  loadShippedTools,
  shippedToolNames,
} from '../../../workers/index.js';

// ADR 0093: the two Home Assistant tools as one tool's two actions; the old ones kept a release.

describe('the home_assistant tool', () => {
  const [entities, call] = callablesOf(homeAssistantTool);

  test('has the two actions, each the old tool under its new name, schemas unchanged', () => {
    expect(callablesOf(homeAssistantTool).map((t) => t.name)).toEqual([
      HA_ENTITIES,
      HA_CALL_SERVICE,
    ]);
    expect(entities!.spec.input_schema).toEqual(haEntitiesTool.spec.input_schema);
    expect(entities!.spec.output_schema).toEqual(haEntitiesTool.spec.output_schema);
    expect(call!.spec.input_schema).toEqual(callServiceTool.spec.input_schema);
    expect(call!.spec.annotations).toEqual(callServiceTool.spec.annotations);
    expect(entities!.spec.annotations).toMatchObject({ readOnly: true });
  });

  test('one config section, one backend, the same tags and trust for both', () => {
    for (const t of [entities!, call!]) {
      expect(t.configSection).toBe('ha');
      expect(t.spec).toMatchObject({
        backend: 'home_assistant',
        execution_locality: 'lan',
        output_trust: 'untrusted',
        reads_private: true,
      });
      expect(t.spec.tags).toEqual(expect.arrayContaining(['tool', 'home', 'home_assistant']));
    }
  });

  test('each description names the other action, not the old tool', () => {
    expect(call!.spec.description).toContain(`Use entity ids from ${HA_ENTITIES}`);
    expect(entities!.spec.description).toContain(`before calling ${HA_CALL_SERVICE}`);
    expect(callServiceTool.spec.description).toContain('Use entity ids from ha_entities');
  });
});

describe('the shipped list', () => {
  test('caesar up starts home_assistant, not the two old tools; serve-tool still knows them', () => {
    expect(defaultToolNames()).toEqual([
      'calculator',
      'calendar_read',
      'home_assistant',
      'web_search',
    ]);
    expect(shippedToolNames()).toEqual(expect.arrayContaining(['call_service', 'ha_entities']));
  });

  test('serving an old tool says what to serve instead; a current one says nothing', () => {
    expect(deprecatedToolNote('call_service')).toMatch(
      /'call_service' is deprecated .* serve 'home_assistant' instead .*home_assistant\.call_service/,
    );
    expect(deprecatedToolNote('ha_entities')).toMatch(/home_assistant\.entities/);
    expect(deprecatedToolNote('home_assistant')).toBeUndefined();
    expect(deprecatedToolNote('calculator')).toBeUndefined();
  });

  test('loading home_assistant gives its two actions', async () => {
    const tools = await loadShippedTools(['home_assistant']);
    expect(tools.map((t) => t.name)).toEqual([HA_ENTITIES, HA_CALL_SERVICE]);
  });
});

describe('the two names of each Home Assistant callable', () => {
  test.each([
    ['call_service', HA_CALL_SERVICE],
    ['ha_entities', HA_ENTITIES],
  ])('%s is %s for the policy, and each is the other name of the other', (old, now) => {
    expect(canonicalCallable(old)).toBe(now);
    expect(canonicalCallable(now)).toBe(now);
    expect(otherHaName(old)).toBe(now);
    expect(otherHaName(now)).toBe(old);
  });

  test('no other callable has another name', () => {
    expect(canonicalCallable('calculator')).toBe('calculator');
    expect(otherHaName('calculator')).toBeUndefined();
    expect(otherHaName('home_assistant')).toBeUndefined();
  });

  test('both names of the service call are service calls; the lookup is not', () => {
    expect(isServiceCallTool('call_service')).toBe(true);
    expect(isServiceCallTool(HA_CALL_SERVICE)).toBe(true);
    expect(isServiceCallTool(HA_ENTITIES)).toBe(false);
  });

  test.each([
    [
      'the name called, when served',
      'call_service',
      ['call_service', HA_CALL_SERVICE],
      'call_service',
    ],
    ['the new name, when only it is served', 'call_service', [HA_CALL_SERVICE], HA_CALL_SERVICE],
    ['the old name, when only it is served', HA_ENTITIES, ['ha_entities'], 'ha_entities'],
    ['the name called, when neither is served', HA_ENTITIES, [], HA_ENTITIES],
    ['any other tool as called', 'calculator', [], 'calculator'],
  ])('a call goes out under %s', (_what, called, served, expected) => {
    expect(servedName(called, (n) => served.includes(n))).toBe(expected);
  });
});
