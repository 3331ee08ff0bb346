import { CaesarError, NotConfiguredError, RefCounted } from '../../legion/index.js';
import type { TtlCache } from './cache.js';
import { HaClient } from './client.js';
import {
  haTarget,
  missingSettings,
  notConfiguredReason,
  type HaConfig,
  type HaTarget,
} from './config.js';
import { createRegistryCache, type Registry } from './registry.js';
import { ServicesDirectory } from './services.js';
import { createStatesCache, type StatesSnapshot } from './states.js';

/** Cache lifetimes; tests shorten them. */
export interface HaSessionOptions {
  /** `GET /api/services`. @default 300000 */
  servicesTtlMs?: number;
  /** `GET /api/states`. @default 10000 */
  statesTtlMs?: number;
  /** The registries over the WebSocket API. @default 60000 */
  registryTtlMs?: number;
  /** How long a failed registry read is remembered. @default 30000 */
  registryFailureTtlMs?: number;
  now?: () => number;
}

/** A configured session: the client and the caches built on it. */
export interface HaConnection {
  readonly target: HaTarget;
  readonly client: HaClient;
  readonly services: ServicesDirectory;
  readonly states: TtlCache<StatesSnapshot>;
  readonly registry: TtlCache<Registry>;
}

/**
 * One tool's view of one Home Assistant (one `ha` config section): the REST client and
 * caches, or, when a key is missing, what to set.
 */
export class HaSession {
  /** Keys still to set, named both ways; empty when configured. */
  readonly missing: readonly string[];
  readonly connection: HaConnection | undefined;

  constructor(config: HaConfig, options: HaSessionOptions = {}) {
    this.missing = missingSettings(config);
    const target = haTarget(config);
    if (target === undefined) {
      this.connection = undefined;
      return;
    }
    const client = new HaClient(target);
    const now = options.now ? { now: options.now } : {};
    this.connection = {
      target,
      client,
      services: new ServicesDirectory(client, { ttlMs: options.servicesTtlMs, ...now }),
      states: createStatesCache(client, { ttlMs: options.statesTtlMs, ...now }),
      registry: createRegistryCache(target, {
        ttlMs: options.registryTtlMs,
        failureTtlMs: options.registryFailureTtlMs,
        ...now,
      }),
    };
  }

  /** @throws NotConfiguredError naming the keys to set. */
  require(): HaConnection {
    if (this.connection === undefined) {
      throw new NotConfiguredError(notConfiguredReason(this.missing));
    }
    return this.connection;
  }

  async close(): Promise<void> {
    await this.connection?.client.close();
  }
}

/**
 * The sessions of one tool definition, one per config section it was started with (tests
 * serve one definition against several fakes). `start` and `stop` pair up like the tool's
 * own; the sessions close when the last instance stops.
 */
export class HaSessions {
  readonly #options: HaSessionOptions;
  readonly #byConfig = new RefCounted<object, HaSession>((session) => session.close());

  constructor(options: HaSessionOptions = {}) {
    this.#options = options;
  }

  start(config: HaConfig): HaSession {
    return this.#byConfig.acquire(config, () => new HaSession(config, this.#options));
  }

  /** The session started with this config. */
  get(config: HaConfig): HaSession {
    const session = this.#byConfig.peek(config);
    if (session === undefined)
      throw CaesarError.of('internal', { reason: 'the tool was not started' });
    return session;
  }

  stop(): Promise<void> {
    return this.#byConfig.release();
  }
}
