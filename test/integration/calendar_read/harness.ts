import { type PreflightResult, type ToolContext } from '../../../src/legion/index.js';
import { silentLogger, type Logger } from '../../../src/log/index.js';
import { createCalendarReadTool } from '../../../workers/calendar_read/index.js';
import {
  CalendarConfigSchema,
  type CalendarConfig,
} from '../../../workers/calendar_read/config.js';
import {
  CalendarReadInputSchema,
  type CalendarReadResult,
} from '../../../workers/calendar_read/schema.js';

const worker = { id: 'test-worker', host: 'localhost' };

export interface StartedTool extends AsyncDisposable {
  readonly config: CalendarConfig;
  /** Calls the handler as the SDK would: input parsed by the tool's schema first. */
  call(
    input?: unknown,
    opts?: { signal?: AbortSignal; deadlineMs?: number },
  ): Promise<CalendarReadResult>;
  preflight(): Promise<PreflightResult>;
}

/**
 * A calendar_read tool started on a `tools.calendar` section (as caesar.yaml or the env
 * would give it: strings are fine), called with a hand-built ctx, stopped on dispose.
 */
export async function startTool(
  section: Record<string, unknown>,
  opts: { logger?: Logger } & Parameters<typeof createCalendarReadTool>[0] = {},
): Promise<StartedTool> {
  const config = CalendarConfigSchema.parse(section);
  const { logger = silentLogger(), ...options } = opts;
  const tool = createCalendarReadTool(options);
  await tool.start!({ logger, config, worker });
  const stop = async () => {
    await tool.stop!();
  };
  return {
    config,
    call: async (input = {}, o = {}) => {
      const ctx: ToolContext<CalendarConfig> = {
        logger,
        signal: o.signal ?? new AbortController().signal,
        decisionId: 'dec-test',
        deadline: Date.now() + (o.deadlineMs ?? 20_000),
        config,
        worker,
      };
      return tool.handler(CalendarReadInputSchema.parse(input), ctx);
    },
    preflight: async () => tool.preflight!({ logger, config, worker }),
    [Symbol.asyncDispose]: stop,
  };
}

/** The rejection of a call, to inspect its code and message. */
export async function failureOf(p: Promise<unknown>): Promise<Error & { code?: string }> {
  // a CaesarError carries `code`; any other Error has none
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof Error)) throw new Error(`expected a failure, got ${JSON.stringify(err)}`);
  return err;
}
