import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { BackendError, defineTool } from '../../../src/legion/index.js';

const base = {
  version: '1.0.0',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  executionLocality: 'local' as const,
  resourceRequirements: { cpu: 'low' as const, memory_mb: 16, network: false },
};

/** Echoes its input after an optional delay; fails the way `mode` says. */
export const probeTool = defineTool({
  ...base,
  name: 'probe',
  description: 'Test tool: echoes, sleeps, throws or hangs on request.',
  input: z.strictObject({
    text: z.string().max(100),
    sleepMs: z.number().int().min(0).max(10_000).default(0),
    mode: z.enum(['ok', 'throw_async', 'throw_sync', 'backend', 'bad_output']).default('ok'),
  }),
  output: z.object({ echo: z.string() }),
  timeoutMs: 5000,
  maxConcurrency: 2,
  maxQueue: 2,
  handler: async (input, ctx) => {
    if (input.mode === 'throw_sync') throw new Error('sync boom');
    if (input.sleepMs > 0) {
      await sleep(input.sleepMs, undefined, { signal: ctx.signal });
    }
    if (input.mode === 'throw_async') {
      await Promise.resolve();
      throw new TypeError('async boom');
    }
    if (input.mode === 'backend') throw new BackendError('upstream said 503', { retryable: true });
    if (input.mode === 'bad_output') return { echo: 42 } as unknown as { echo: string };
    return { echo: input.text };
  },
});
