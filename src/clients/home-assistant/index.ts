// Shared Home Assistant client code of the `call_service` and `ha_entities` tools.
export type { HaConfig } from './config.js';
export { HA_NAME, haMessage, statusError } from './client.js';
export { ServiceCatalogue } from './services.js';
export type { ResponseMode, ServiceInfo } from './services.js';
export { friendlyName, parseStateList, readState } from './states.js';
export type { HaState, StatesSnapshot } from './states.js';
export type { AreaInfo, Registry } from './registry.js';
export { suggestEntity, suggestService } from './suggest.js';
export { HaSessions } from './session.js';
export type { HaConnection, HaSessionOptions } from './session.js';
export { haToolParts } from './tool-parts.js';
