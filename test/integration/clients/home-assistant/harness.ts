import type { z } from 'zod';
import type { ToolContext, ToolDefinition } from '../../../../src/legion/index.js';
import { silentLogger } from '../../../../src/log/index.js';
import { type HaConfig } from '../../../../src/clients/home-assistant/index.js';
import { HaConfigSchema } from '../../../../src/clients/home-assistant/config.js';
import { FAKE_HA_TOKEN, type FakeHomeAssistant } from '../../../helpers/fake-home-assistant.js';

const worker = { id: 'ha-test-worker', host: 'localhost' };

/** The `ha` section for a fake, parsed as the SDK would. */
export function haConfig(
  ha: FakeHomeAssistant | { url: string },
  extra: Record<string, unknown> = {},
): HaConfig {
  return HaConfigSchema.parse({ url: ha.url, token: FAKE_HA_TOKEN, ...extra });
}

/** A started tool called through its handler with a hand-built context, as the SDK would. */
export interface StartedTool<I extends z.ZodType, O extends z.ZodType> extends AsyncDisposable {
  /** Parses `input` with the tool's schema (throws on a refusal), runs the handler. */
  call(input: unknown, opts?: { deadlineMs?: number; signal?: AbortSignal }): Promise<z.output<O>>;
  /** The schema's verdict on an input, without running anything. */
  accepts(input: unknown): boolean;
  preflight(): ReturnType<NonNullable<ToolDefinition<I, O, typeof HaConfigSchema>['preflight']>>;
}

export async function startTool<I extends z.ZodType, O extends z.ZodType>(
  tool: ToolDefinition<I, O, typeof HaConfigSchema>,
  config: HaConfig,
): Promise<StartedTool<I, O>> {
  const startCtx = { logger: silentLogger(), config, worker };
  await tool.start?.(startCtx);
  const stop = async () => {
    await tool.stop?.();
  };
  return {
    async call(input, opts = {}) {
      const deadlineMs = opts.deadlineMs ?? 10_000;
      const ctx: ToolContext<HaConfig> = {
        logger: silentLogger(),
        signal: opts.signal ?? AbortSignal.timeout(deadlineMs),
        decisionId: 'dec-ha',
        deadline: Date.now() + deadlineMs,
        config,
        worker,
      };
      const parsed = tool.input.parse(input);
      const result = await tool.handler(parsed, ctx);
      return tool.output.parse(result);
    },
    accepts: (input) => tool.input.safeParse(input).success,
    preflight: async () => tool.preflight!(startCtx),
    [Symbol.asyncDispose]: stop,
  };
}

/** The rejection of `p`, failing the test when it resolves. */
export async function rejectionOf(p: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  const outcome = await p.then(
    (value) => ({ ok: true as const, value }),
    (err: unknown) => ({ ok: false as const, err }),
  );
  if (outcome.ok) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.value)}`);
  return outcome.err as Error & Record<string, unknown>;
}
