// Public surface of the brain's HTTP API (docs/api.md, ADR 0032).
export { buildHttpServer, startHttpServer } from './server.js';
export { BrainMetrics } from './metrics.js';
export type { MetricsRegistry } from './metrics-registry.js';
export { loadTokens } from './token-store.js';
// The tokens file's reader is part of the API contract (src/brain/api, ADR 0047); kept here
// for the callers that read it with the server.
export { readTokensFile } from '../api/index.js';
