import type { PreflightResult, ToolStartContext } from '../../legion/index.js';
import { HA_SECTION, HaConfigSchema, type HaConfig } from './config.js';
import { haPreflight } from './preflight.js';
import type { HaSessions } from './session.js';

/**
 * What every Home Assistant tool declares the same way, spread into its `defineTool`: the
 * tags and backend, a LAN tool that reaches the outside world, what its output is, the `ha`
 * config section, one session per config opened by `start` and closed by `stop`, and the
 * preflight (`registry` when the tool reads the entity registry too).
 */
export function haToolParts(sessions: HaSessions, preflight: { registry?: boolean } = {}) {
  return {
    tags: ['tool', 'home', 'home_assistant', 'network'],
    backend: 'home_assistant',
    executionLocality: 'lan' as const,
    // the home's devices and states, named by whoever set up (or paired) each device
    outputTrust: 'untrusted' as const,
    readsPrivate: true,
    config: HaConfigSchema,
    configSection: HA_SECTION,
    start: (ctx: ToolStartContext<HaConfig>): void => {
      sessions.start(ctx.config);
    },
    stop: (): Promise<void> => sessions.stop(),
    preflight: (ctx: ToolStartContext<HaConfig>): Promise<PreflightResult> =>
      haPreflight(sessions.get(ctx.config), preflight),
  };
}
