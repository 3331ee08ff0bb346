/**
 * The brain's view of its NATS connection for `GET /readyz`. It lives in src/bus, where the
 * dispatcher reads the same status to refuse calls at once while the bus is down.
 */
export { ConnectionWatch } from '../../bus/index.js';
