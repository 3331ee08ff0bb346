import { z } from 'zod';
import { BackendError } from '../../legion/index.js';
import { TtlCache } from './cache.js';
import { HA_NAME, type HaClient } from './client.js';

/** Whether a service returns a response: never, when asked (`?return_response`), or always. */
export type ResponseMode = 'none' | 'optional' | 'only';

/** One service as `GET /api/services` describes it. */
export interface ServiceInfo {
  readonly domain: string;
  readonly service: string;
  readonly response: ResponseMode;
  /** Its data fields, by name. */
  readonly fields: readonly string[];
}

/** Bounds on a catalogue, so a strange answer cannot grow the worker without end. */
const MAX_DOMAINS = 1000;
const MAX_SERVICES = 20_000;

const ServiceEntrySchema = z
  .object({
    fields: z.record(z.string(), z.unknown()).nullish(),
    response: z.object({ optional: z.boolean() }).nullish(),
  })
  .loose();

const CatalogueSchema = z.array(
  z
    .object({
      domain: z.string(),
      // Home Assistant describes each service; very old versions listed names only.
      services: z.union([z.record(z.string(), z.unknown()), z.array(z.string())]),
    })
    .loose(),
);

/** Every service Home Assistant offers, by domain. */
export class ServiceCatalogue {
  readonly #domains: ReadonlyMap<string, ReadonlyMap<string, ServiceInfo>>;

  constructor(domains: ReadonlyMap<string, ReadonlyMap<string, ServiceInfo>>) {
    this.#domains = domains;
  }

  get(domain: string, service: string): ServiceInfo | undefined {
    return this.#domains.get(domain)?.get(service);
  }

  hasDomain(domain: string): boolean {
    return this.#domains.has(domain);
  }

  domains(): string[] {
    return [...this.#domains.keys()].sort();
  }

  servicesOf(domain: string): string[] {
    return [...(this.#domains.get(domain)?.keys() ?? [])].sort();
  }
}

/** Reads `GET /api/services`. @throws BackendError when the answer has another shape. */
export function parseCatalogue(json: unknown): ServiceCatalogue {
  const parsed = CatalogueSchema.safeParse(json);
  if (!parsed.success) {
    throw new BackendError(`${HA_NAME} answered GET /api/services with an unexpected shape`, {
      retryable: false,
    });
  }
  const domains = new Map<string, Map<string, ServiceInfo>>();
  let count = 0;
  for (const { domain, services } of parsed.data.slice(0, MAX_DOMAINS)) {
    const byName = domains.get(domain) ?? new Map<string, ServiceInfo>();
    const entries: [string, unknown][] = Array.isArray(services)
      ? services.map((name) => [name, {}])
      : Object.entries(services);
    for (const [service, raw] of entries) {
      if (++count > MAX_SERVICES) break;
      byName.set(service, describe(domain, service, raw));
    }
    domains.set(domain, byName);
  }
  return new ServiceCatalogue(domains);
}

function describe(domain: string, service: string, raw: unknown): ServiceInfo {
  const entry = ServiceEntrySchema.safeParse(raw);
  const response = entry.success ? entry.data.response : undefined;
  return {
    domain,
    service,
    response: response ? (response.optional ? 'optional' : 'only') : 'none',
    fields: entry.success ? Object.keys(entry.data.fields ?? {}).slice(0, 50) : [],
  };
}

interface ServicesDirectoryOptions {
  /** How long the catalogue is trusted. @default 300000 (5 min) */
  ttlMs?: number;
  /** A miss reloads the catalogue unless it is younger than this. @default 2000 */
  minRefreshMs?: number;
  now?: () => number;
}

/** The catalogue, cached, reloaded when it is old or lacks a service someone asks for. */
export class ServicesDirectory {
  readonly #cache: TtlCache<ServiceCatalogue>;
  readonly #minRefreshMs: number;
  readonly #now: () => number;

  constructor(client: HaClient, options: ServicesDirectoryOptions = {}) {
    this.#cache = new TtlCache(async () => parseCatalogue(await client.getJson('api/services')), {
      ttlMs: options.ttlMs ?? 300_000,
      ...(options.now ? { now: options.now } : {}),
    });
    this.#minRefreshMs = options.minRefreshMs ?? 2000;
    this.#now = options.now ?? Date.now;
  }

  /**
   * The service, looked up in the cached catalogue and, on a miss, in a fresh one. Also
   * returns the catalogue it looked in (for suggestions).
   */
  async find(
    domain: string,
    service: string,
    signal?: AbortSignal,
  ): Promise<{ info: ServiceInfo | undefined; catalogue: ServiceCatalogue }> {
    let catalogue = await this.#cache.get(signal);
    let info = catalogue.get(domain, service);
    const age = this.#now() - (this.#cache.loadedAt ?? 0);
    if (info === undefined && age >= this.#minRefreshMs) {
      catalogue = await this.#cache.refresh(signal);
      info = catalogue.get(domain, service);
    }
    return { info, catalogue };
  }

  /** A fresh catalogue's view of the service (after Home Assistant contradicted ours). */
  async reload(domain: string, service: string, signal?: AbortSignal) {
    const catalogue = await this.#cache.refresh(signal);
    return { info: catalogue.get(domain, service), catalogue };
  }
}
