import { inspect } from 'node:util';
import { expect } from 'vitest';
import { CaesarError, type ToolContext } from '../../../src/legion/index.js';
import { silentLogger } from '../../../src/log/index.js';
import { createWebSearchTool } from '../../../workers/web_search/index.js';
import type { WebSearchOutput } from '../../../workers/web_search/schema.js';
import type { WebSearchSettings } from '../../../workers/web_search/config.js';
import type { WebSearchToolOptions } from '../../../workers/web_search/tool.js';

const worker = { id: 'test-worker', host: 'localhost' };

/**
 * A web_search tool started with a config section (as caesar.yaml or env would give it),
 * called through its handler with a hand-made ctx, as docs/legion.md describes. `search`
 * validates the input with the tool's own schema first, as the SDK does before the handler.
 */
export interface StartedTool extends AsyncDisposable {
  readonly tool: ReturnType<typeof createWebSearchTool>;
  readonly config: WebSearchSettings;
  search(input: unknown, signal?: AbortSignal): Promise<WebSearchOutput>;
  preflight(): ReturnType<NonNullable<ReturnType<typeof createWebSearchTool>['preflight']>>;
}

export async function startTool(
  section: Record<string, unknown>,
  options: WebSearchToolOptions = {},
): Promise<StartedTool> {
  const tool = createWebSearchTool(options);
  const config = tool.config!.parse(section);
  const startCtx = { logger: silentLogger(), config, worker };
  await tool.start!(startCtx);
  const stop = async () => {
    await tool.stop!();
  };
  return {
    tool,
    config,
    search: async (input, signal = new AbortController().signal) => {
      const ctx: ToolContext<WebSearchSettings> = {
        logger: silentLogger(),
        signal,
        decisionId: 'dec-test',
        deadline: Date.now() + 12_000,
        config,
        worker,
      };
      return checkOutput(await tool.handler(tool.input.parse(input), ctx), tool);
    },
    preflight: async () => tool.preflight!(startCtx),
    [Symbol.asyncDispose]: stop,
  };
}

/** The SDK checks the output against the output schema; so do the tests. */
function checkOutput(out: unknown, tool: ReturnType<typeof createWebSearchTool>): WebSearchOutput {
  return tool.output.parse(out);
}

/** The CaesarError a promise rejects with; fails the test when it resolves. */
export async function failureOf(p: Promise<unknown>): Promise<CaesarError> {
  const err = await p.then(
    (v: unknown) => {
      throw new Error(`expected a failure, got ${JSON.stringify(v)}`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CaesarError);
  return err as CaesarError;
}

/** Everything an error could show anywhere: message, details, cause chain, stack. */
export function everythingIn(err: unknown): string {
  return [
    inspect(err, { depth: 20, showHidden: true }),
    JSON.stringify(err),
    err instanceof Error ? err.message : '',
    err instanceof CaesarError ? JSON.stringify(err.details ?? null) : '',
  ].join('\n');
}
