import { connectBus } from '../../bus/index.js';
import { describePreflight, PreflightCache } from '../../brain/preflight/index.js';
import type { EmbeddedNats } from './embedded-nats.js';

/** How long `caesar up` waits for each tool's preflight answer. */
const PREFLIGHT_TIMEOUT_MS = 5000;

/**
 * Asks each tool's preflight (is its backend configured and reachable?) as the operator
 * identity, and returns one line per tool (`calculator: ready`, `web_search: not
 * configured: set …`).
 */
export async function preflightLines(
  nats: EmbeddedNats,
  tools: readonly string[],
): Promise<string[]> {
  const seedFile = nats.auth?.operatorSeedFile;
  const nc = await connectBus({
    servers: nats.url,
    name: 'caesar-up',
    ...(seedFile === undefined ? {} : { auth: { kind: 'nkey', seedFile } }),
  });
  try {
    const cache = new PreflightCache(nc, { timeoutMs: PREFLIGHT_TIMEOUT_MS });
    return await Promise.all(
      tools.map(async (tool) => describePreflight(tool, await cache.get(tool))),
    );
  } finally {
    await nc.close();
  }
}
