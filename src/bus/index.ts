export {
  BusAuthError,
  connectBus,
  connectBusWhenReachable,
  flushWhenConnected,
  readNkeySeed,
} from './connect.js';
export { BusPermissionError, describeRefusals, refusalsDuring } from './permissions.js';
export type { Refusal } from './permissions.js';
export type { BusOptions } from './connect.js';
export { ConnectionWatch } from './connection-watch.js';
export type { BusStatus } from './connection-watch.js';
export { startNatsServer } from './launcher.js';
export { startNatsCluster } from './cluster.js';
export type { NatsCluster } from './cluster.js';
