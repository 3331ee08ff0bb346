import { createHash } from 'node:crypto';
import { mkdtemp, open as openFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { openPolicyStore, PolicyLoadError, type PolicyStore } from '../../../src/policy/index.js';
import { PolicyClosedError, PolicyReadError } from '../../../src/policy/errors.js';
import type { PolicyEventMap } from '../../../src/policy/events.js';
import { tool } from './helpers.js';
import { waitFor } from '../../helpers/wait.js';

const V1 = 'version: 1\nallowed_tools: [calculator]\n';
const V2 = 'version: 1\nallowed_tools: [calculator, web_search]\n';
const BROKEN = 'version: 1\nallowed_tools:\n  - tool: web_search\n    tagret: 1\n';
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** Resolves with the next event of `type` that satisfies `match`; fails after a generous deadline. */
function nextEvent<K extends keyof PolicyEventMap>(
  store: PolicyStore,
  type: K,
  match: (e: PolicyEventMap[K][0]) => boolean = () => true,
  deadlineMs = 10_000,
): Promise<PolicyEventMap[K][0]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      store.off(type, listener as never);
      reject(new Error(`no ${type} event within ${deadlineMs} ms`));
    }, deadlineMs);
    const listener = (event: PolicyEventMap[K][0]) => {
      if (!match(event)) return;
      clearTimeout(timer);
      store.off(type, listener as never);
      resolve(event);
    };
    store.on(type, listener as never);
  });
}

let dir: string;
let file: string;
const stores: PolicyStore[] = [];

async function open(
  text = V1,
  options: { onEvent?: (e: unknown) => void } = {},
): Promise<PolicyStore> {
  await writeFile(file, text);
  const store = await openPolicyStore({ path: file, debounceMs: 20, ...options });
  stores.push(store);
  return store;
}

/** Replaces the file the way editors do: write a temporary file, rename it over the original. */
async function replaceByRename(text: string): Promise<void> {
  const tmp = join(dir, `.policy.yaml.${Math.random().toString(36).slice(2)}.tmp`);
  await writeFile(tmp, text);
  await rename(tmp, file);
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-policy-'));
  file = join(dir, 'policy.yaml');
});

afterEach(async () => {
  for (const s of stores.splice(0)) s.close();
  await rm(dir, { recursive: true, force: true });
});

describe('PolicyStore', () => {
  test('opens the file and evaluates against it', async () => {
    const store = await open();
    expect(store.policy.sha256).toBe(sha(V1));
    expect(store.evaluate(tool('calculator')).allowed).toBe(true);
    expect(store.explain(tool('web_search')).decision.allowed).toBe(false);
  });

  test('refuses to open a missing file (PolicyReadError) or a bad one (PolicyLoadError)', async () => {
    await expect(
      openPolicyStore({ path: join(dir, 'absent.yaml'), watch: false }),
    ).rejects.toBeInstanceOf(PolicyReadError);
    await writeFile(file, BROKEN);
    await expect(openPolicyStore({ path: file, watch: false })).rejects.toBeInstanceOf(
      PolicyLoadError,
    );
  });

  test('a file replaced by rename is reloaded and used at once', async () => {
    const store = await open();
    const reloaded = nextEvent(store, 'policy.reloaded');
    await replaceByRename(V2);
    const event = await reloaded;
    expect(event).toMatchObject({
      type: 'policy.reloaded',
      path: file,
      policy_sha256: sha(V2),
      previous_sha256: sha(V1),
      changed: true,
      rules: 2,
      trigger: 'watch',
    });
    expect(store.evaluate(tool('web_search')).allowed).toBe(true);
  });

  test('a file rewritten in place is reloaded', async () => {
    const store = await open();
    const reloaded = nextEvent(store, 'policy.reloaded');
    await writeFile(file, V2);
    expect((await reloaded).policy_sha256).toBe(sha(V2));
  });

  test('a save in place is not applied half-written: a prefix that allows more never loads', async () => {
    // The prefix parses and allows web_search; the whole file denies it again.
    const prefix = 'version: 1\nallowed_tools: [calculator, web_search]\n';
    const whole = `${prefix}denied_tools: [web_search]\n`;
    await writeFile(file, V1);
    const seen: string[] = [];
    const store = await openPolicyStore({ path: file, debounceMs: 20, settleMs: 1_000 });
    stores.push(store);
    store.on('policy.reloaded', (e) => seen.push(e.policy_sha256));
    const final = nextEvent(store, 'policy.reloaded', (e) => e.policy_sha256 === sha(whole));
    const handle = await openFile(file, 'w'); // truncates, like an editor saving in place
    try {
      await handle.write(prefix);
      // Longer than the debounce, so a watched reload reads the prefix; well inside the
      // settle period, so its second read sees the rest.
      await new Promise((r) => setTimeout(r, 200));
      await handle.write(`denied_tools: [web_search]\n`);
    } finally {
      await handle.close();
    }
    await final;
    expect(seen).not.toContain(sha(prefix));
    expect(store.evaluate(tool('web_search')).allowed).toBe(false);
  });

  test('a burst of writes settles on the last version', async () => {
    const store = await open();
    const final = nextEvent(store, 'policy.reloaded', (e) => e.policy_sha256 === sha(V2));
    for (const text of [V1 + '#1\n', V1 + '#2\n', V1 + '#3\n', V2]) await writeFile(file, text);
    await final;
    expect(store.policy.sha256).toBe(sha(V2));
  });

  test('a bad edit keeps the last good policy and says why; fixing it reloads', async () => {
    const store = await open();
    const failed = nextEvent(store, 'policy.reload_failed');
    await replaceByRename(BROKEN);
    const event = await failed;
    expect(event).toMatchObject({
      type: 'policy.reload_failed',
      kept_sha256: sha(V1),
      trigger: 'watch',
      code: 'policy_invalid',
      error: expect.stringContaining("4:5: allowed_tools[0].tagret: unknown key 'tagret'"),
    });
    expect(event.issues).toEqual([
      {
        path: 'allowed_tools[0].tagret',
        line: 4,
        column: 5,
        message: "unknown key 'tagret' (did you mean 'target'?)",
      },
    ]);
    expect(store.policy.sha256).toBe(sha(V1));
    expect(store.evaluate(tool('calculator')).allowed).toBe(true);

    const fixed = nextEvent(store, 'policy.reloaded');
    await replaceByRename(V2);
    expect((await fixed).previous_sha256).toBe(sha(V1));
    expect(store.evaluate(tool('web_search')).allowed).toBe(true);
  });

  test('reload() re-reads now and resolves with the event (unchanged file: changed=false)', async () => {
    const store = await open(V1);
    const event = await store.reload();
    expect(event).toMatchObject({
      type: 'policy.reloaded',
      changed: false,
      trigger: 'manual',
      policy_sha256: sha(V1),
    });
    expect(event.type === 'policy.reloaded' && event.duration_ms).toBeGreaterThanOrEqual(0);
  });

  test('reload() of a missing file reports policy_unreadable and keeps the policy', async () => {
    await writeFile(file, V1);
    const store = await openPolicyStore({ path: file, watch: false });
    stores.push(store);
    await unlink(file);
    const event = await store.reload();
    expect(event).toMatchObject({
      type: 'policy.reload_failed',
      code: 'policy_unreadable',
      error: expect.stringMatching(/^cannot read policy file .*policy\.yaml/),
      kept_sha256: sha(V1),
    });
    expect(store.evaluate(tool('calculator')).allowed).toBe(true);
  });

  test('onEvent receives every event, and a throwing listener does not break reloads', async () => {
    const onEvent = vi.fn();
    const store = await open(V1, { onEvent });
    store.on('policy.reloaded', () => {
      throw new Error('listener bug');
    });
    await writeFile(file, BROKEN);
    const failed = await store.reload();
    await writeFile(file, V2);
    const ok = await store.reload();
    expect(onEvent.mock.calls.map((c) => c[0] as unknown)).toEqual(
      expect.arrayContaining([failed, ok]),
    );
    expect(store.policy.sha256).toBe(sha(V2));
  });

  test('swaps are atomic: every decision matches the policy whose sha it reports', async () => {
    const store = await open(V1);
    // writeFile truncates before it writes, so on a loaded machine the watcher can read the file
    // while it is empty: that compiles to the deny-all policy (ADR 0012), a third valid state.
    const expected = new Map([
      [sha(V1), false],
      [sha(V2), true],
      [sha(''), false],
    ]);
    for (let i = 0; i < 20; i++) {
      await writeFile(file, i % 2 === 0 ? V2 : V1);
      const reloading = store.reload();
      for (let j = 0; j < 50; j++) {
        const d = store.evaluate(tool('web_search'));
        expect(d.allowed).toBe(expected.get(d.policy_sha256));
      }
      await reloading;
    }
  });

  test('close() stops watching and reload() then rejects with PolicyClosedError', async () => {
    const onEvent = vi.fn();
    const store = await open(V1, { onEvent });
    store.close();
    store.close();
    await writeFile(file, V2);
    await new Promise((r) => setTimeout(r, 200)); // 10x the debounce: a watcher would have fired
    expect(onEvent).not.toHaveBeenCalled();
    expect(store.policy.sha256).toBe(sha(V1));
    await expect(store.reload()).rejects.toBeInstanceOf(PolicyClosedError);
  });

  test('a store is disposable with `using`', async () => {
    await writeFile(file, V1);
    let escaped: PolicyStore;
    {
      using store = await openPolicyStore({ path: file, debounceMs: 20 });
      escaped = store;
      expect(store.evaluate(tool('calculator')).allowed).toBe(true);
    }
    await expect(escaped.reload()).rejects.toMatchObject({ code: 'policy_closed' });
  });
});

describe('hot reload', () => {
  test('a running engine picks up an edit within a second, refuses a broken edit and keeps deciding with the last good policy', async () => {
    await writeFile(file, V1);
    const store = await openPolicyStore({ path: file }); // default debounce and signal
    stores.push(store);
    expect(store.evaluate(tool('web_search')).outcome).toBe('deny');

    const t0 = performance.now();
    await replaceByRename(V2);
    await waitFor(
      () => store.evaluate(tool('web_search')).allowed,
      'the edit to take effect',
      1000,
      5,
    );
    expect(performance.now() - t0).toBeLessThan(1000);

    const refused = nextEvent(store, 'policy.reload_failed', () => true, 1000);
    await writeFile(file, BROKEN);
    expect(await refused).toMatchObject({ kept_sha256: sha(V2), code: 'policy_invalid' });
    expect(store.policy.sha256).toBe(sha(V2));
    expect(store.evaluate(tool('web_search')).outcome).toBe('allow');
    expect(store.evaluate(tool('shell')).outcome).toBe('deny');
  });

  test('SIGHUP re-reads the file (trigger: signal); close() removes the handler', async () => {
    await writeFile(file, V1);
    const before = process.listenerCount('SIGHUP');
    const store = await openPolicyStore({ path: file, watch: false });
    stores.push(store);
    expect(process.listenerCount('SIGHUP')).toBe(before + 1);
    await writeFile(file, V2);
    const reloaded = nextEvent(store, 'policy.reloaded');
    process.emit('SIGHUP', 'SIGHUP');
    expect(await reloaded).toMatchObject({ trigger: 'signal', policy_sha256: sha(V2) });
    expect(store.evaluate(tool('web_search')).allowed).toBe(true);
    store.close();
    expect(process.listenerCount('SIGHUP')).toBe(before);
  });

  test('reloadSignal: null installs no handler', async () => {
    await writeFile(file, V1);
    const before = process.listenerCount('SIGHUP');
    const store = await openPolicyStore({ path: file, watch: false, reloadSignal: null });
    stores.push(store);
    expect(process.listenerCount('SIGHUP')).toBe(before);
  });
});
