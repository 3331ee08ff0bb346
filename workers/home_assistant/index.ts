// Shared Home Assistant client code of the `call_service` and `ha_entities` tools.
export { HA_SECTION, HaConfigSchema, haSetting, missingSettings, requireTarget } from './config.js';
export type { HaConfig, HaTarget } from './config.js';
export {
  HA_MAX_RESPONSE_BYTES,
  HA_NAME,
  HaClient,
  haMessage,
  parseJson,
  statusError,
  tokenRejected,
} from './client.js';
export { TtlCache, untilAborted } from './cache.js';
export type { TtlCacheOptions } from './cache.js';
export { ServiceCatalogue, ServicesDirectory, parseCatalogue } from './services.js';
export type { ResponseMode, ServiceInfo, ServicesDirectoryOptions } from './services.js';
export { HaStateSchema, MAX_ENTITIES, friendlyName, parseStateList, readState } from './states.js';
export type { HaState, StatesSnapshot } from './states.js';
export { fetchRegistry } from './registry.js';
export type { AreaInfo, Registry } from './registry.js';
export { HaWebSocket, websocketUrl, WS_MAX_MESSAGE_BYTES } from './websocket.js';
export type { WsCommand, WsResult } from './websocket.js';
export { suggestEntity, suggestService } from './suggest.js';
export type { ServiceSuggestion } from './suggest.js';
export { HaSession, HaSessions } from './session.js';
export type { HaConnection, HaSessionOptions } from './session.js';
export { haPreflight } from './preflight.js';
export { haToolParts } from './tool-parts.js';
