import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { IntentStore } from '../../../../src/brain/intents/index.js';
import type { IntentsReloadEvent } from '../../../../src/brain/intents/store.js';
import { waitFor } from '../../../helpers/wait.js';

// Issue 15: the intents file reloads on save, as the policy does; a broken save keeps the
// last good rules and says where the problem is (file:line:column).

const ctx = { now: new Date('2026-12-02T12:00:00Z'), timeZone: 'UTC' };
const rule = (name: string, sentence: string) =>
  `  - name: ${name}\n    tool: greeter\n    sentences: ['${sentence}']\n    slots:\n      who: { type: text }\n    input: { who: '{who}' }\n    reply: '{result.greeting}'\n`;
const file = (...rules: string[]) => `version: 1\nintents:\n${rules.join('')}`;

let dir: string;
let path: string;
let store: IntentStore | undefined;
const events: IntentsReloadEvent[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-intents-'));
  path = join(dir, 'intents.yaml');
  events.length = 0;
  await writeFile(path, file(rule('greet', 'greet {who}')));
  store = await IntentStore.open({ file: path, onEvent: (e) => events.push(e) });
});
afterEach(async () => {
  store?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('IntentStore', () => {
  test('a saved file is live without a restart, saved in place or replaced by rename', async () => {
    expect(store!.match('say hi to Ada', ctx)).toBeUndefined();
    await writeFile(path, file(rule('greet', 'greet {who}'), rule('hi', 'say hi to {who}')));
    await waitFor(() => store!.match('say hi to Ada', ctx), 'the new rule to match', 10_000);
    // an editor's save: write a temp file, rename it over
    await writeFile(join(dir, '.intents.yaml.swp'), file(rule('wave', 'wave at {who}')));
    await rename(join(dir, '.intents.yaml.swp'), path);
    await waitFor(() => store!.match('wave at Ada', ctx), 'the renamed file to load', 10_000);
    expect(store!.match('greet Ada', ctx)).toBeUndefined();
  });

  test('a broken save keeps the last good rules and says file:line:column', async () => {
    await writeFile(path, `${file(rule('greet', 'greet {who}'))}    sentense: oops\n`);
    const failed = await waitFor(
      () => events.find((e) => e.type === 'intents.reload_failed'),
      'the reload to fail',
      10_000,
    );
    expect(failed.type === 'intents.reload_failed' && failed.error).toMatch(
      new RegExp(`${path.replaceAll('.', '\\.')}:\\d+:\\d+: `),
    );
    expect(store!.match('greet Ada', ctx)?.intent).toBe('greet');
    // fixed: the next save is live again
    await writeFile(path, file(rule('hi', 'say hi to {who}')));
    await waitFor(() => store!.match('say hi to Ada', ctx), 'the fixed file to load', 10_000);
  });

  test('reload() re-reads the file on demand and says how many rules are live', async () => {
    store!.close();
    await writeFile(path, file(rule('greet', 'greet {who}'), rule('hi', 'say hi to {who}')));
    const event = await store!.reload();
    expect(event).toEqual({ type: 'intents.reloaded', file: path, rules: 2 });
    expect(store!.match('say hi to Ada', ctx)?.intent).toBe('hi');
  });
});
