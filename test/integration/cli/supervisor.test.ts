import { describe, expect, test } from 'vitest';
import { Supervisor } from '../../../src/cli/stack/supervisor.js';
import type { ChildMessage } from '../../../src/cli/stack/messages.js';

/** A child that sends `messages` over its IPC channel, then waits to be stopped. */
function childSending(messages: unknown[]): string[] {
  const script = `for (const m of ${JSON.stringify(messages)}) process.send(m); setInterval(() => {}, 1000);`;
  return ['-e', script];
}

describe('Supervisor', () => {
  test('parses what a child sends: a well-formed message is passed on, a malformed one refused and named', async () => {
    const seen: [string, ChildMessage][] = [];
    const refused: [string, string][] = [];
    let done: () => void = () => undefined;
    const both = new Promise<void>((resolve) => (done = resolve));
    const supervisor = new Supervisor({
      onMessage: (name, message) => {
        seen.push([name, message]);
        if (refused.length > 0) done();
      },
      onMalformed: (name, problem) => {
        refused.push([name, problem]);
        if (seen.length > 0) done();
      },
    });
    const good = { type: 'worker_ready', instances: [{ tool: 'calculator', id: 'i1', host: 'h' }] };
    supervisor.start({
      name: 'calculator',
      command: process.execPath,
      args: childSending([{ type: 'ready', instances: 'all' }, good]),
    });
    try {
      await both;
    } finally {
      await supervisor.stop();
    }
    expect(seen).toEqual([['calculator', good]]);
    expect(refused).toHaveLength(1);
    expect(refused[0]![0]).toBe('calculator');
    expect(refused[0]![1]).toMatch(/^type: /);
  }, 30_000);
});
