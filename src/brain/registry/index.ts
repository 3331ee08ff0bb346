export { Registry, RegistryClosedError, startRegistry } from './registry.js';
export type {
  RegistryEvents,
  InstanceAddedEvent,
  InstanceRemovedEvent,
  RemovalReason,
  SweepEvent,
  ByeRefusedEvent,
  HelloUnconfirmedEvent,
  SpecChangedEvent,
} from './events.js';
export type { SafetyField } from './safety.js';
export type { RegistryOptions } from './options.js';
export type { RegisteredTool, RegisteredInstance } from './view.js';
export type { ToolInstanceInfo } from './instance.js';
export { discoverServices } from './discovery.js';
export type {
  DiscoverOptions,
  DiscoveredTool,
  DiscoveredInstance,
  InstanceStats,
} from './discovery.js';
