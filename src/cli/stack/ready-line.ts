import type { BrainReady } from './messages.js';

/** What the `ready:` line of `caesar up` says. */
export interface ReadyFacts {
  readonly apiUrl: string;
  readonly natsUrls: readonly string[];
  readonly tools: readonly string[];
  readonly tokensFile: string;
  /** The brain's `brain_ready`: the model it asks, when it said (every brain since ADR 0075). */
  readonly brain: Pick<BrainReady, 'llm'>;
}

/**
 * `ready: CAESAR is up at … with 5 tool(s): …; model: openai gpt-4o-mini. Dashboard: …`: where
 * the stack is, its tools, which model answers what the local rules do not (or `no model:
 * local rules only`), and the first things to try.
 */
export function readyLine(f: ReadyFacts): string {
  const model = f.brain.llm === undefined ? '' : `; ${f.brain.llm.model}`;
  return (
    `ready: CAESAR is up at ${f.apiUrl} (NATS ${f.natsUrls.join(', ')}) with ${f.tools.length} tool(s): ${f.tools.join(', ')}${model}. ` +
    `Dashboard: open ${f.apiUrl}/ and paste the token from ${f.tokensFile}. ` +
    'Try: caesar chat "what is 17 * 23". Ctrl-C stops everything.'
  );
}
