import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { openAuditLog, type AuditLog } from '../../../src/audit/index.js';
import { IntentStore } from '../../../src/brain/intents/index.js';
import { openPolicyStore, type PolicyStore } from '../../../src/policy/index.js';
import { toolCalled } from '../../helpers/audit-fixtures.js';
import { waitFor, within } from '../../helpers/wait.js';

// Issue 26, finding 4: the policy store watched its whole directory (by default the data dir,
// where the audit log is written) and each write there restarted its 50 ms debounce, so a
// deny rule saved under load applied only once traffic paused. With the file watch filtered
// by name and a maximum wait, an edit applies within 250 ms while the audit log beside it
// takes 2,000 writes a second, and a ConfigMap-style symlink swap is seen.

const V1 = 'version: 1\nallowed_tools: [calculator]\n';
const V2 = 'version: 1\nallowed_tools: [calculator]\ndenied_tools: [calculator]\n';
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const ACCEPTANCE_MS = 250;
const RATE = 2_000;

/**
 * Appends `RATE` rows a second to `audit` (a timer every 4 ms issues the rows due by then);
 * `durableIn(from, to)` counts rows whose append resolved (committed to disk) in that window.
 */
function auditLoad(audit: AuditLog) {
  const started = performance.now();
  const durable: number[] = [];
  let issued = 0;
  let failed: unknown = null;
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) * RATE) / 1000) - issued;
    for (let i = 0; i < Math.min(due, 200); i++) {
      audit.append(toolCalled(issued++)).then(
        () => durable.push(performance.now()),
        (err: unknown) => (failed ??= err),
      );
    }
  }, 4);
  return {
    durableIn: (from: number, to: number) => durable.filter((t) => t >= from && t < to).length,
    stop: () => {
      clearInterval(timer);
      if (failed !== null) throw new Error('an audit append failed', { cause: failed });
    },
  };
}

let dir: string;
let audit: AuditLog;
const closers: (() => void)[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-reload-load-'));
  audit = openAuditLog({ path: join(dir, 'audit.db'), retention: { days: 0, intervalMs: 0 } });
});

afterEach(async () => {
  for (const close of closers.splice(0)) close();
  await audit.close();
  await rm(dir, { recursive: true, force: true });
});

/** Resolves with performance.now() at the store's `policy.reloaded` of `text`. */
function reloadedAt(store: PolicyStore, text: string): Promise<number> {
  return new Promise((resolve) => {
    store.on('policy.reloaded', (e) => {
      if (e.policy_sha256 === sha(text)) resolve(performance.now());
    });
  });
}

describe('a policy edit under 2,000 audit writes a second in the same directory', () => {
  test('is applied within 250 ms of the rename', async () => {
    const file = join(dir, 'policy.yaml');
    await writeFile(file, V1);
    // the defaults: as `caesar brain` opens it, with the audit log in the same data dir
    const store = await openPolicyStore({ path: file, reloadSignal: null });
    closers.push(() => store.close());
    const started = performance.now();
    const load = auditLoad(audit);
    closers.push(() => load.stop());
    // steady traffic first (a full second at half the rate or more, however slow the disk's
    // first syncs), so the edit lands in the middle of it
    await waitFor(
      () => {
        const now = performance.now();
        return now - started >= 1_000 && load.durableIn(now - 1_000, now) > RATE * 0.5;
      },
      `${RATE * 0.5} durable audit rows in the last second`,
      15_000,
      20,
    );
    const applied = reloadedAt(store, V2);
    await writeFile(join(dir, '.policy.yaml.tmp'), V2);
    const renamed = performance.now();
    await rename(join(dir, '.policy.yaml.tmp'), file);
    const at = await within(applied, 'the edit to be applied while the writes go on', 10_000);
    const latency = at - renamed;
    load.stop();
    // the writes really went on around the edit (else the test proves nothing)
    const during = load.durableIn(renamed - 1_000, renamed);
    expect(during, 'audit rows made durable in the second before the edit').toBeGreaterThan(
      RATE * 0.5,
    );
    expect(load.durableIn(renamed, at), 'rows durable between rename and reload').toBeGreaterThan(
      0,
    );
    expect(latency, `rename -> policy.reloaded with ${during} rows/s beside it`).toBeLessThan(
      ACCEPTANCE_MS,
    );
    expect(store.evaluate({ tool: 'calculator', input: {} }).allowed).toBe(false);
  }, 40_000);
});

/**
 * Kubernetes mounts a ConfigMap as `file -> ..data/file` and `..data -> ..<timestamp>/`, and
 * updates it by writing a new timestamped directory, pointing `..data_tmp` at it and renaming
 * `..data_tmp` over `..data`: the file's own name never changes in the directory.
 */
async function configMap(root: string, name: string, text: string): Promise<() => Promise<void>> {
  let n = 0;
  const version = async (content: string) => {
    const stamp = `..2026_12_04_00_00_0${n++}.${process.pid}`;
    await mkdir(join(root, stamp));
    await writeFile(join(root, stamp, name), content);
    return stamp;
  };
  const first = await version(text);
  await symlink(first, join(root, '..data'));
  await symlink(join('..data', name), join(root, name));
  return async () => {
    const next = await version(`${text}# v${n}\n`);
    await symlink(next, join(root, '..data_tmp'));
    await rename(join(root, '..data_tmp'), join(root, '..data'));
    await rm(join(root, first), { recursive: true, force: true });
  };
}

describe('a ConfigMap-style symlink swap', () => {
  test('reloads the policy', async () => {
    const swap = await configMap(dir, 'policy.yaml', V1);
    const store = await openPolicyStore({ path: join(dir, 'policy.yaml'), reloadSignal: null });
    closers.push(() => store.close());
    const reloaded = new Promise<string>((resolve) =>
      store.on('policy.reloaded', (e) => resolve(e.policy_sha256)),
    );
    await swap();
    expect(await within(reloaded, 'the swapped policy to load', 10_000)).toBe(sha(`${V1}# v1\n`));
  });

  test('reloads the intent rules', async () => {
    const rules =
      "version: 1\nintents:\n  - name: hi\n    tool: greeter\n    sentences: ['say hi']\n    input: {}\n    reply: 'hi'\n";
    const swap = await configMap(dir, 'intents.yaml', rules);
    let resolve: (type: string) => void = () => undefined;
    const reloaded = new Promise<string>((r) => (resolve = r));
    const store = await IntentStore.open({
      file: join(dir, 'intents.yaml'),
      onEvent: (e) => resolve(e.type),
    });
    closers.push(() => store.close());
    await swap();
    expect(await within(reloaded, 'the swapped rules to load', 10_000)).toBe('intents.reloaded');
  });
});
