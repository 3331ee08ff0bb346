import type { ToolCallReport } from '../api/index.js';

/** What the brain says when no intent matched and no LLM is configured. */
export function offlineReply(capabilities: readonly string[]): string {
  const lines = ["I can't answer that offline: no local rule matched, and no LLM is configured."];
  if (capabilities.length > 0) {
    lines.push('Offline, I can:', ...capabilities.map((c) => `- ${c}`));
  }
  lines.push(
    'To answer anything else, configure an LLM planner (`llm.provider` in caesar.yaml; see docs/configuration.md).',
  );
  return lines.join('\n');
}

/** What the brain says when the planner used up its rounds. Never silent. */
export function capReply(maxIterations: number, calls: readonly ToolCallReport[]): string {
  const made = calls.length === 0 ? 'no tool calls' : `${calls.length} tool call(s)`;
  return (
    `I stopped after ${maxIterations} planning rounds (brain.max_iterations) without a final answer; ` +
    `I made ${made} on the way. Try a simpler request, or raise brain.max_iterations.`
  );
}
