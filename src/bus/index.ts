export { connectBus, buildAuthenticator, BusConnectError } from './connect.js';
export type { BusOptions, BusAuth } from './connect.js';
export { ConnectionWatch } from './connection-watch.js';
export type { BusStatus } from './connection-watch.js';
export { startNatsServer, findNatsServer, NatsServerError, NATS_INSTALL_HINT } from './launcher.js';
export type { NatsExit, NatsServer, NatsServerOptions } from './launcher.js';
