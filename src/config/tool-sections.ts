import { TOP_LEVEL_TOOL_SECTIONS } from '../text/index.js';
import type { CaesarConfig } from './types.js';

/**
 * Every section a tool may read, by section name, as `serveTools({config})` takes them: the
 * `tools.<name>` sections and the top-level ones (`ha`). A tool picks its own with
 * `defineTool({configSection})` (default: its name).
 */
export function toolConfigSections(config: CaesarConfig): Record<string, unknown> {
  const sections: Record<string, unknown> = { ...config.tools };
  for (const name of TOP_LEVEL_TOOL_SECTIONS) {
    sections[name] = (config as unknown as Record<string, unknown>)[name];
  }
  return sections;
}
