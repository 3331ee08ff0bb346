// Public surface of the brain's HTTP API (docs/api.md, ADR 0032).
export { buildHttpServer, startHttpServer } from './server.js';
export { BrainMetrics } from './metrics.js';
export type { ApiToken } from './token-store.js';
export { ensureTokensFile, readTokensFile, loadTokens, TokensFileError } from './tokens.js';
