import type { Logger } from '../../log/index.js';
import { matchesTags, type TagFilter } from '../../protocol/index.js';

/** Tools named in the warning; more are counted. */
const MAX_NAMED = 10;

/** What the check reads of the registry: its tools, and each sweep as it ends. */
export interface SweptTools {
  tools(): readonly {
    readonly name: string;
    readonly spec: { readonly tags: readonly string[] };
  }[];
  on(event: 'sweep', listener: () => void): unknown;
  off(event: 'sweep', listener: () => void): unknown;
}

/**
 * Makes a setting that relied on the old OR meaning of `llm.include_tags` visible (ADR 0088):
 * once the registry's tools have stayed the same over two sweeps and none carries every
 * listed tag, one warning names the key, the tags and the tools, and the check stops. It
 * stops silently as soon as a tool matches. Waiting for a settled tool set keeps a stack that
 * is still starting its workers (`caesar up`) from being warned about a tool not yet there.
 * @returns a function that stops the check early (the brain's close)
 */
export function watchIncludeTags(
  registry: SweptTools,
  filter: TagFilter,
  logger: Logger,
): () => void {
  const include = filter.includeTags ?? [];
  if (include.length === 0) return () => undefined;
  let last: string | undefined;
  const stop = () => void registry.off('sweep', check);
  function check(): void {
    const tools = registry.tools();
    if (tools.some((t) => matchesTags(t.spec.tags, filter))) return stop();
    const names = tools.map((t) => t.name).sort();
    const key = names.join(',');
    if (names.length === 0 || key !== last) {
      last = key;
      return;
    }
    stop();
    logger.warn(
      { key: 'llm.include_tags', tags: include, tools: names.slice(0, MAX_NAMED) },
      unmatched(include, names),
    );
  }
  registry.on('sweep', check);
  check();
  return stop;
}

/** The warning's words: the key, the tags, the tools, and the way out. */
function unmatched(include: readonly string[], names: readonly string[]): string {
  const more = names.length > MAX_NAMED ? ` and ${names.length - MAX_NAMED} more` : '';
  const shown = names.slice(0, MAX_NAMED).join(', ');
  return (
    `llm.include_tags [${include.join(', ')}] matches none of the ${names.length} tools ` +
    `discovered (${shown}${more}), so the model is offered no tool: a tool must carry every ` +
    'listed tag (ADR 0088). To offer tools with any one of them, list only the tag they ' +
    'share (such as `tool`) and leave the others out with llm.exclude_tags.'
  );
}
