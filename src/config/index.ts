export { loadConfig, loadConfigAndStack, loadConfigWithSources } from './load.js';
export { ConfigError } from './errors.js';
export type { ConfigIssue } from './errors.js';
export type { CaesarConfig, BusAuth, ConfigSetting, ToolLimits } from './types.js';
export { formatDuration } from '../text/index.js';
export { redactSettings } from './redact.js';
export { SHIPPED_DASHBOARD_DIR } from './shipped.js';
export { toolConfigSections } from './tool-sections.js';
export {
  RuntimeFileError,
  lookupRunningStack,
  readRuntimeFile,
  removeRuntimeFile,
  writeRuntimeFile,
} from './runtime-file.js';
export type { RunningStack, RuntimeInfo, RuntimeInfoInput } from './runtime-file.js';
export { seedDefaultFiles } from './seed-files.js';
export { HA_SECTION, HaSectionSchema } from './ha-section.js';
export { sectionFromEnvStrings } from './env.js';
