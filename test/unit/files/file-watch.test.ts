import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import {
  ChangeBatch,
  namesThatChange,
  watchFileChanges,
  type FileChangeWatch,
} from '../../../src/files/file-watch.js';
import { waitFor } from '../../helpers/wait.js';

// Issue 26, finding 4: one file watch for the stores that reload a saved file. Its decisions
// (which names are the file, when a batch of changes runs) are tested here without timing;
// the fs.watch around them with real saves below; under load in
// test/integration/policy/reload-under-load.test.ts.

describe('ChangeBatch: when a batch of changes runs', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const batch = (debounceMs = 50, maxWaitMs = 150) => {
    const run = vi.fn();
    return { run, batch: new ChangeBatch({ debounceMs, maxWaitMs, run, now: () => Date.now() }) };
  };

  test('after the quiet period following the last change, once', () => {
    const { run, batch: b } = batch();
    b.change();
    vi.advanceTimersByTime(30);
    b.change();
    vi.advanceTimersByTime(49);
    expect(run).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(run).toHaveBeenCalledOnce();
    vi.advanceTimersByTime(1_000);
    expect(run).toHaveBeenCalledOnce();
  });

  test('a change every 10 ms cannot hold it past the maximum wait', () => {
    const { run, batch: b } = batch();
    for (let t = 0; t < 149; t += 10) {
      b.change();
      vi.advanceTimersByTime(10);
    }
    expect(run).toHaveBeenCalledOnce(); // at 150 ms, though the changes never paused for 50
  });

  test('the next change opens a new batch with its own maximum wait', () => {
    const { run, batch: b } = batch(50, 100);
    b.change();
    vi.advanceTimersByTime(50);
    expect(run).toHaveBeenCalledTimes(1);
    for (let t = 0; t < 100; t += 10) {
      b.change();
      vi.advanceTimersByTime(10);
    }
    expect(run).toHaveBeenCalledTimes(2);
  });

  test('never runs after close, even with a batch pending', () => {
    const { run, batch: b } = batch();
    b.change();
    b.close();
    b.change();
    vi.advanceTimersByTime(1_000);
    expect(run).not.toHaveBeenCalled();
  });
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-file-watch-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The ConfigMap layout: `name -> ..data/name`, `..data -> ..<stamp>`. Returns `swap()`. */
async function configMap(name: string, text: string) {
  let n = 0;
  const version = async (content: string) => {
    const stamp = `..2026_12_04_00_00_0${n++}`;
    await mkdir(join(dir, stamp));
    await writeFile(join(dir, stamp, name), content);
    return stamp;
  };
  const first = await version(text);
  await symlink(first, join(dir, '..data'));
  await symlink(join('..data', name), join(dir, name));
  return async (content: string) => {
    const next = await version(content);
    await symlink(next, join(dir, '..data_tmp'));
    await rename(join(dir, '..data_tmp'), join(dir, '..data'));
    return next;
  };
}

describe('namesThatChange: which names of the directory are the file', () => {
  test('a plain file is its own name only', async () => {
    await writeFile(join(dir, 'policy.yaml'), 'x');
    expect(namesThatChange(join(dir, 'policy.yaml'))).toEqual(new Set(['policy.yaml']));
  });

  test('a missing file is its own name (it may appear)', () => {
    expect(namesThatChange(join(dir, 'policy.yaml'))).toEqual(new Set(['policy.yaml']));
  });

  test('a ConfigMap mount: the file, ..data and the version it points at', async () => {
    const swap = await configMap('policy.yaml', 'x');
    expect(namesThatChange(join(dir, 'policy.yaml'))).toEqual(
      new Set(['policy.yaml', '..data', '..2026_12_04_00_00_00']),
    );
    const next = await swap('y');
    expect(namesThatChange(join(dir, 'policy.yaml'))).toEqual(
      new Set(['policy.yaml', '..data', next]),
    );
  });

  test('a link by absolute path inside the directory is followed; one out of it is not', async () => {
    await writeFile(join(dir, 'real.yaml'), 'x');
    await symlink(join(dir, 'real.yaml'), join(dir, 'policy.yaml'));
    expect(namesThatChange(join(dir, 'policy.yaml'))).toEqual(
      new Set(['policy.yaml', 'real.yaml']),
    );
    await symlink('/etc/hostname', join(dir, 'elsewhere.yaml'));
    expect(namesThatChange(join(dir, 'elsewhere.yaml'))).toEqual(new Set(['elsewhere.yaml']));
  });

  test('a link loop ends', async () => {
    await symlink('b', join(dir, 'a'));
    await symlink('a', join(dir, 'b'));
    expect(namesThatChange(join(dir, 'a'))).toEqual(new Set(['a', 'b']));
  });
});

describe('watchFileChanges on a real directory', () => {
  let watch: FileChangeWatch | undefined;
  afterEach(() => watch?.close());

  const start = (file: string) => {
    let changes = 0;
    watch = watchFileChanges(file, () => changes++, { debounceMs: 10, maxWaitMs: 50 });
    return () => changes;
  };

  test('sees a write in place', async () => {
    const file = join(dir, 'policy.yaml');
    await writeFile(file, 'a');
    const changes = start(file);
    await writeFile(file, 'b');
    await waitFor(() => changes() > 0, 'a change', 10_000);
  });

  test("sees an editor's rename over the file", async () => {
    const file = join(dir, 'policy.yaml');
    await writeFile(file, 'a');
    const changes = start(file);
    await writeFile(join(dir, '.policy.yaml.swp'), 'b');
    await rename(join(dir, '.policy.yaml.swp'), file);
    await waitFor(() => changes() > 0, 'a change', 10_000);
  });

  test('sees a ConfigMap swap, twice (the links are followed again after each)', async () => {
    const swap = await configMap('policy.yaml', 'a');
    const changes = start(join(dir, 'policy.yaml'));
    await swap('b');
    await waitFor(() => changes() > 0, 'the first swap', 10_000);
    const after = changes();
    await swap('c');
    await waitFor(() => changes() > after, 'the second swap', 10_000);
  });

  test('poke runs onChange like an event; nothing runs after close', async () => {
    const file = join(dir, 'policy.yaml');
    await writeFile(file, 'a');
    const changes = start(file);
    watch!.poke();
    await waitFor(() => changes() === 1, 'the poke', 10_000);
    watch!.poke();
    watch!.close();
    await writeFile(file, 'b');
    // a later watch of the same file sees the write; the closed one stayed silent
    const later = start(file);
    await writeFile(file, 'c');
    await waitFor(() => later() > 0, 'the new watch', 10_000);
    expect(changes()).toBe(1);
  });

  test('a watch whose directory cannot be watched reports it and stops', () => {
    expect(() => watchFileChanges(join(dir, 'missing', 'policy.yaml'), () => undefined)).toThrow(
      /ENOENT/,
    );
  });
});
