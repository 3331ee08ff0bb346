export { connectBus, buildAuthenticator, BusConnectError } from './connect.js';
export type { BusOptions, BusAuth } from './connect.js';
export { startNatsServer, findNatsServer, NatsServerError, NATS_INSTALL_HINT } from './launcher.js';
export type { NatsServer, NatsServerOptions } from './launcher.js';
