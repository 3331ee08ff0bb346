// Public surface of the brain's HTTP API (docs/api.md, ADR 0032).
export { buildHttpServer, startHttpServer } from './server.js';
export type { HttpServerOptions, ListenOptions } from './server.js';
export { isLoopbackHost } from './loopback.js';
export { BrainMetrics } from './metrics.js';
export type { InstanceSource } from './metrics.js';
export { TokenStore } from './token-store.js';
export { API_SCOPES } from './token-store.js';
export type { ApiScope, ApiToken, TokenIdentity } from './token-store.js';
export { ensureTokensFile, readTokensFile, loadTokens, TokensFileError } from './tokens.js';
export type { TokensFileErrorCode } from './tokens.js';
export { HttpBindError } from './errors.js';
export type { HttpErrorCode } from './errors.js';
