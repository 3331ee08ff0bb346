import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  compilePolicy,
  DEFAULT_POLICY_MAX_BYTES,
  openPolicyStore,
  type PolicyStore,
} from '../../../src/policy/index.js';
import { compilePolicySliced } from '../../../src/policy/compile.js';
import { PolicyTooLargeError } from '../../../src/policy/errors.js';
import { readPolicyText } from '../../../src/policy/load.js';
import { tool } from './helpers.js';

/**
 * Issue 11, finding 9: a 10 MB policy held the event loop for 3.9 s on reload and took the
 * brain from 228 to 657 MB. The file is now bounded (`policy.max_file_bytes`, 512 KiB by
 * default), refused before it is read, and a reload compiles in slices.
 */
const GOOD = 'version: 1\nallowed_tools: [calculator]\n';

/** A valid policy of `rules` service rules. */
function manyRules(rules: number): string {
  let text = 'version: 1\nallowed_services:\n';
  for (let i = 0; i < rules; i++) {
    text += `  - service: light.turn_on\n    id: r${i}\n    target: {entity_id: [light.l${i}]}\n    data: {brightness_pct: {max: 80}}\n`;
  }
  return text;
}

/** `GOOD` padded with a comment to exactly `bytes` bytes. */
function padded(bytes: number): string {
  const head = `${GOOD}# `;
  return `${head}${'x'.repeat(bytes - head.length - 1)}\n`;
}

let dir: string;
let file: string;
const stores: PolicyStore[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-policy-size-'));
  file = join(dir, 'policy.yaml');
});
afterEach(async () => {
  for (const s of stores.splice(0)) s.close();
  await rm(dir, { recursive: true, force: true });
});

describe('policy.max_file_bytes', () => {
  test('the default is 512 KiB: a file of exactly that size loads, one byte more is refused', async () => {
    expect(DEFAULT_POLICY_MAX_BYTES).toBe(524_288);
    await writeFile(file, padded(524_288));
    await expect(readPolicyText(file)).resolves.toMatchObject({ text: padded(524_288) });
    await writeFile(file, padded(524_289));
    await expect(readPolicyText(file)).rejects.toBeInstanceOf(PolicyTooLargeError);
  });

  test('the error names the file, its size, the bound and the key that raises it', async () => {
    await writeFile(file, padded(4096));
    const err = await openPolicyStore({ path: file, maxFileBytes: 4095, watch: false }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PolicyTooLargeError);
    const e = err as PolicyTooLargeError;
    expect(e.code).toBe('policy_too_large');
    expect(e.message).toContain(file);
    expect(e.message).toContain('4096 bytes');
    expect(e.message).toContain('limit of 4095 bytes');
    expect(e.message).toContain('policy.max_file_bytes');
  });

  test('a 10 MB file on reload is refused and the last good policy stays in force', async () => {
    await writeFile(file, GOOD);
    const store = await openPolicyStore({ path: file, watch: false, reloadSignal: null });
    stores.push(store);
    await writeFile(file, padded(10 * 1024 * 1024));
    const event = await store.reload();
    expect(event).toMatchObject({ type: 'policy.reload_failed', code: 'policy_too_large' });
    expect(store.evaluate(tool('calculator', { expression: '1+1' })).allowed).toBe(true);
  });
});

describe('a reload does not hold the event loop for the whole compile', () => {
  test('a sliced compile lets other work run between slices and builds the same policy', async () => {
    const text = manyRules(2000);
    let ticks = 0;
    let spinning = true;
    const spin = () => {
      ticks += 1;
      if (spinning) setImmediate(spin);
    };
    setImmediate(spin);
    const sliced = await compilePolicySliced(text, { file: 'p.yaml' });
    spinning = false;
    // 2,000 rules: 8 slices validating, 8 compiling, and the phases between them
    expect(ticks).toBeGreaterThanOrEqual(16);
    const whole = compilePolicy(text, { file: 'p.yaml' });
    expect(sliced.rules).toEqual(whole.rules);
    expect(sliced.sha256).toBe(whole.sha256);
  });

  test('a sliced compile reports the same issues as a whole one', async () => {
    const text = `${manyRules(600)}  - service: light.turn_on\n    targets: {}\nbogus: 1\n`;
    const whole = (() => {
      try {
        compilePolicy(text);
      } catch (err) {
        return err;
      }
    })();
    const sliced = await compilePolicySliced(text).catch((e: unknown) => e);
    expect(sliced).toMatchObject({ code: 'policy_invalid' });
    expect((sliced as { issues: unknown }).issues).toEqual((whole as { issues: unknown }).issues);
    expect((sliced as { issues: unknown[] }).issues).toHaveLength(2);
  });

  test('the store reloads a file near the bound and enforces it', async () => {
    await writeFile(file, GOOD);
    const store = await openPolicyStore({ path: file, watch: false, reloadSignal: null });
    stores.push(store);
    const text = manyRules(2400);
    expect(Buffer.byteLength(text)).toBeLessThan(DEFAULT_POLICY_MAX_BYTES);
    await writeFile(file, text);
    const event = await store.reload();
    expect(event).toMatchObject({ type: 'policy.reloaded', rules: 2400 });
  });
});
