import { expect, test } from 'vitest';
import { loadShippedTools, shippedToolNames } from '../../../workers/index.js';

// What each shipped tool's output is (ADR 0067): the brain labels a turn's content with it,
// and the policy's flow rules gate what a model may do after reading it. Review any change.
const EXPECTED: Record<string, { output_trust: string; reads_private: boolean }> = {
  calculator: { output_trust: 'trusted', reads_private: false },
  calendar_read: { output_trust: 'untrusted', reads_private: true },
  call_service: { output_trust: 'untrusted', reads_private: true },
  dns_lookup: { output_trust: 'untrusted', reads_private: false },
  ha_entities: { output_trust: 'untrusted', reads_private: true },
  'home_assistant.entities': { output_trust: 'untrusted', reads_private: true },
  'home_assistant.call_service': { output_trust: 'untrusted', reads_private: true },
  web_search: { output_trust: 'untrusted', reads_private: false },
};

test('every shipped tool says what its output is, as the table above', async () => {
  const names = shippedToolNames();
  const tools = await loadShippedTools(names);
  // one row per callable: a tool with actions brings each of them (ADR 0092)
  expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(EXPECTED).sort());
  const declared = Object.fromEntries(
    tools.map((t) => [
      t.name,
      { output_trust: t.spec.output_trust, reads_private: t.spec.reads_private },
    ]),
  );
  expect(declared).toEqual(EXPECTED);
  // declared by the tool itself, not left to the SDK's default
  for (const t of tools) {
    expect([t.name, t.outputTrust, t.readsPrivate]).toEqual([
      t.name,
      EXPECTED[t.name]!.output_trust,
      EXPECTED[t.name]!.reads_private,
    ]);
  }
});
