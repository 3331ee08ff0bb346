import {
  CaesarError,
  defineTool,
  notConfigured,
  NotConfiguredError,
  RefCounted,
  type ToolStartContext,
} from '../../src/legion/index.js';
import type { SearchBackend } from './backends/backend.js';
import { createBrave } from './backends/brave.js';
import { createSearxng } from './backends/searxng.js';
import { createTavily } from './backends/tavily.js';
import {
  NOT_CONFIGURED_MESSAGE,
  WHAT_TO_SET,
  TOOL_TIMEOUT_MS,
  WebSearchConfigSchema,
  type BackendSettings,
  type WebSearchSettings,
} from './config.js';
import { BackendPreflight, PREFLIGHT_CACHE_MS } from './preflight.js';
import { normaliseResults } from './results.js';
import {
  askedResults,
  WebSearchInputSchema,
  WebSearchOutputSchema,
  type WebSearchOutput,
} from './schema.js';
import { searchInOrder, type SearchOutcome } from './search.js';
import { redactSecrets, type Secret } from './secret.js';

const DESCRIPTION = [
  'Searches the web and returns a short list of results: title, URL, domain, a plain-text snippet and,',
  'when known, the publication date. Use it for current events, facts you are unsure of, documentation',
  'and prices; it returns what search engines say about pages, not the pages themselves.',
  'Example: {"query": "nats jetstream consumer ack policy", "max_results": 5, "language": "en"}.',
  "max_results (or limit, the same field) defaults to the operator's setting (5) and is cut to the",
  "operator's maximum (25 by default) rather than refused. The backend is a self-hosted SearXNG, the",
  'Brave Search API or Tavily,',
  "tried in the operator's order; `backend` in the answer names the one that answered, and `notes` say",
  'what failed on the way. Refuses (invalid_input) an empty query or one over 500 characters; Brave and',
  'Tavily take at most 400. An empty `results` list means the search ran and found nothing; a search',
  'that could not run fails instead: upstream_empty (the engines behind the backend failed),',
  'backend_error (unreachable, quota or rate limit, misconfigured), timeout, or not_configured (no',
  'backend set, or an API key rejected), with the reason. The policy may drop results outside allowed domains.',
].join(' ');

/** Most notes in one answer, and the longest one. */
const MAX_NOTES = 5;
const MAX_NOTE_LENGTH = 300;

export interface WebSearchToolOptions {
  /** How long a passing, billed (Brave) preflight probe is reused. @default PREFLIGHT_CACHE_MS */
  preflightCacheMs?: number;
  /** The preflight cache's clock. @default Date.now */
  now?: () => number;
}

/** What one started instance holds: its backends and their preflight. */
interface Running {
  readonly backends: readonly SearchBackend[];
  readonly preflight: BackendPreflight;
  readonly secrets: readonly Secret[];
}

/**
 * Builds a web_search tool. `start` opens one HttpBackend per configured backend (timeout
 * `timeout_seconds`), `stop` closes them after the last instance stops.
 */
export function createWebSearchTool(options: WebSearchToolOptions = {}) {
  // one set of backends per config section, closed when the last instance stops
  const running = new RefCounted<WebSearchSettings, Running>((run) =>
    Promise.allSettled(run.backends.map((b) => b.close())),
  );
  return defineTool({
    name: 'web_search',
    version: '1.0.0',
    title: 'Web search',
    description: DESCRIPTION,
    tags: ['tool', 'web', 'network'],
    backend: 'searxng|brave|tavily',
    capabilities: ['search'],
    input: WebSearchInputSchema,
    output: WebSearchOutputSchema,
    annotations: { readOnly: true, openWorld: true },
    determinism: 'nondeterministic',
    executionLocality: 'remote_api',
    resourceRequirements: { cpu: 'low', memory_mb: 64, network: true },
    // titles and snippets are what web pages say: anyone can write them
    outputTrust: 'untrusted',
    readsPrivate: false,
    // Static, so the honest value is the one that may cost: Brave and Tavily bill each call.
    costModel: { kind: 'metered', unit: '1 API request per call (Brave or Tavily); SearXNG free' },
    licensing: 'Apache-2.0',
    hitl: 'autonomous',
    timeoutMs: TOOL_TIMEOUT_MS,
    config: WebSearchConfigSchema,
    start: (ctx) => {
      running.acquire(ctx.config, () => open(ctx.config, options));
      announce(ctx);
    },
    stop: () => running.release(),
    preflight: (ctx) => {
      const run = running.peek(ctx.config);
      if (run === undefined)
        throw CaesarError.of('internal', { reason: 'web_search was not started' });
      if (run.backends.length === 0) return notConfigured(WHAT_TO_SET);
      return run.preflight.run();
    },
    handler: async (input, ctx) => {
      const run = running.peek(ctx.config);
      if (run === undefined)
        throw CaesarError.of('internal', { reason: 'web_search was not started' });
      if (run.backends.length === 0) throw new NotConfiguredError(NOT_CONFIGURED_MESSAGE);
      const { resultLimit, maxResultLimit } = ctx.config;
      const count = Math.min(askedResults(input) ?? resultLimit, maxResultLimit);
      const request = { query: input.query, count, language: input.language };
      let outcome: SearchOutcome;
      try {
        outcome = await searchInOrder(run.backends, request, ctx.signal, ctx.logger);
      } catch (err) {
        throw redactError(err, run.secrets);
      }
      return answer(input.query, outcome, count, run.secrets);
    },
  });
}

function open(settings: WebSearchSettings, options: WebSearchToolOptions): Running {
  const { secrets } = settings;
  const backends = settings.backends.map((b) => createBackend(b, settings.timeoutMs, secrets));
  const preflight = new BackendPreflight(backends, {
    cacheMs: options.preflightCacheMs ?? PREFLIGHT_CACHE_MS,
    now: options.now ?? Date.now,
    secrets,
  });
  return { backends, preflight, secrets };
}

function createBackend(
  settings: BackendSettings,
  timeoutMs: number,
  secrets: readonly Secret[],
): SearchBackend {
  switch (settings.name) {
    case 'searxng':
      return createSearxng(settings.url, timeoutMs);
    case 'brave':
      return createBrave(settings.url, settings.apiKey, { timeoutMs, secrets });
    case 'tavily':
      return createTavily(settings.url, settings.apiKey, { timeoutMs, secrets });
  }
}

function announce(ctx: ToolStartContext<WebSearchSettings>): void {
  const { backends, timeoutMs } = ctx.config;
  if (backends.length === 0) ctx.logger.info(NOT_CONFIGURED_MESSAGE);
  else ctx.logger.info({ backends: backends.map((b) => b.name), timeoutMs }, 'web_search ready');
}

function answer(
  query: string,
  outcome: SearchOutcome,
  count: number,
  secrets: readonly Secret[],
): WebSearchOutput {
  const notes = [
    ...outcome.failures.map((f) => `${f.backend} failed (${f.error.code}): ${f.error.message}`),
    ...outcome.answer.notes,
  ]
    .slice(0, MAX_NOTES)
    .map((n) => clip(redactSecrets(n, secrets), MAX_NOTE_LENGTH));
  return {
    query,
    backend: outcome.backend,
    results: normaliseResults(outcome.answer.candidates, count),
    ...(notes.length === 0 ? {} : { notes }),
  };
}

function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}

/**
 * Belt and braces: upstream text is quoted with every key removed where the message is built
 * (backends/backend.ts `quote`); this pass makes sure no key leaves in a message, its stack
 * (which a log line prints) or the details, whatever quoted it.
 */
function redactError(err: unknown, secrets: readonly Secret[], depth = 0): unknown {
  if (!(err instanceof CaesarError) || secrets.length === 0 || depth > 4) return err;
  err.message = redactSecrets(err.message, secrets);
  if (err.stack !== undefined) err.stack = redactSecrets(err.stack, secrets);
  if (err.details !== undefined) {
    const details = redactSecrets(JSON.stringify(err.details), secrets);
    // eslint-disable-next-line no-restricted-syntax -- JSON.stringify's text a line above, with keys redacted
    (err as { details: unknown }).details = JSON.parse(details) as unknown;
  }
  redactError(err.cause, secrets, depth + 1);
  return err;
}

/** The shipped web_search tool (`caesar legion serve-tool web_search`). */
export const webSearchTool = createWebSearchTool();
