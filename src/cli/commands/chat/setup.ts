import type { CapabilitiesView } from '../../../brain/api/index.js';
import { terminalLine } from '../../../text/terminal-text.js';

/**
 * `/help setup`: the setup details a chat reply only points at (ADR 0074): what works now,
 * then each thing that does not with every step it needs (the command, the policy file, the
 * setting and its env var), then what adds a language model. Every line escaped for the
 * terminal; the lists are bounded by the contract's schema.
 */
export function setupLines(view: CapabilitiesView): string[] {
  const lines: string[] = [];
  if (view.ready.length > 0) {
    lines.push('Working now:', ...view.ready.map((c) => `- ${said(c)}`));
  } else {
    lines.push('None of the local rules can run yet.');
  }
  if (view.missing.length > 0) {
    lines.push('Not available yet:');
    for (const m of view.missing) {
      if (m.steps.length === 1) lines.push(`- ${said(m)}: ${m.steps[0]!}`);
      else lines.push(`- ${said(m)}:`, ...m.steps.map((step) => `  - ${step}`));
    }
  }
  if (view.model.configured) {
    lines.push('A language model answers what no local rule does.');
  } else {
    lines.push(
      'No language model is configured; to answer anything else, add one:',
      ...view.model.steps.map((step) => `- ${step}`),
    );
  }
  return lines.map(terminalLine);
}

function said(c: { readonly what: string; readonly example?: string }): string {
  return c.example === undefined ? c.what : `${c.what} (e.g. '${c.example}')`;
}
