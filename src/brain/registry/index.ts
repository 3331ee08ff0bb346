export { Registry, startRegistry } from './registry.js';
export type { SpecChangedEvent } from './events.js';
export type { RegisteredTool } from './view.js';
export { discoverServices } from './discovery.js';
export type { DiscoveredTool } from './discovery.js';
