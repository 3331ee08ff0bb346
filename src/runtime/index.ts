// Public surface of the runtime helpers. Pure: node:fs and node:url only.
export { assertScriptExists, compiledScriptUrl } from './script-url.js';
