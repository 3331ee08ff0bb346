import { describe, expect, test } from 'vitest';
import { startThread, threadExitText, type ThreadExit } from '../../../src/process/index.js';

// Real worker threads (not processes) running a small fixture that ends as asked: each way a
// thread can end reaches its owner as one ThreadExit, and terminate() may be called twice.
const SCRIPT = new URL('./fixtures/ending-thread.mjs', import.meta.url);
const SMALL_HEAP = { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 };

describe('startThread', () => {
  test.each<[string, ThreadExit['how'], string | RegExp]>([
    ['return', 'returned', 'exit code 0'],
    ['throw', 'threw', 'a bug in the thread'],
    ['exit', 'crashed', 'exit code 3'],
    ['oom', 'out_of_memory', /memory limit/],
  ])('a thread that does "%s" ends as %s, said as %s', async (how, exitHow, text) => {
    const thread = startThread(SCRIPT, { workerData: how, resourceLimits: SMALL_HEAP });
    const exit = await thread.exited;
    expect(exit.how).toBe(exitHow);
    expect(threadExitText(exit)).toMatch(text);
    // after it ended on its own, terminate() says how it ended, not `terminated`
    await expect(thread.terminate()).resolves.toBe(exit);
  });

  test('terminate() ends a running thread as terminated, and a second call is the same promise', async () => {
    const thread = startThread(SCRIPT, { workerData: 'wait' });
    const hello = await new Promise((resolve) => thread.onMessage(resolve));
    expect(hello).toEqual({ hello: 'wait', execArgv: [] });
    const first = thread.terminate();
    expect(thread.terminate()).toBe(first);
    const exit = await first;
    expect(exit.how).toBe('terminated');
    expect(threadExitText(exit)).toBe('terminated by its owner');
    await expect(thread.exited).resolves.toBe(exit);
  });

  test('onExit is told once, also when it listens after the end', async () => {
    const thread = startThread(SCRIPT, { workerData: 'exit', unref: true });
    const early: ThreadExit[] = [];
    thread.onExit((exit) => early.push(exit));
    const exit = await thread.exited;
    const late: ThreadExit[] = [];
    thread.onExit((e) => late.push(e));
    expect(early).toEqual([exit]);
    expect(late).toEqual([exit]);
  });

  test("the thread gets none of the parent's Node flags, only those asked for", async () => {
    const flagsOf = async (execArgv?: string[]) => {
      const thread = startThread(SCRIPT, { workerData: 'return', execArgv });
      const hello = await new Promise((resolve) => thread.onMessage(resolve));
      await thread.exited;
      return (hello as { execArgv: string[] }).execArgv;
    };
    expect(await flagsOf()).toEqual([]);
    expect(await flagsOf(['--no-warnings'])).toEqual(['--no-warnings']);
  });
});
