import { closest } from '../../legion/index.js';
import type { ServiceCatalogue } from './services.js';

/** Services of a domain listed when none is close to the one asked for. */
const MAX_LISTED = 12;

/** The service of `domain` sharing the most `_`-separated words with `service` (`switch_on`). */
function sharingWords(service: string, services: readonly string[]): string | undefined {
  const words = new Set(service.split('_').filter(Boolean));
  let best: string | undefined;
  let bestShared = 0;
  for (const s of services) {
    const shared = s.split('_').filter((w) => words.has(w)).length;
    if (shared > bestShared) {
      best = s;
      bestShared = shared;
    }
  }
  return best;
}

/** A "did you mean" for a service Home Assistant does not have. */
interface ServiceSuggestion {
  /** One sentence: what is missing and what exists. */
  readonly message: string;
  /** `domain.service` of the closest existing service, when there is one. */
  readonly suggestion?: string;
}

/**
 * Says that `domain.service` does not exist and names the closest service that does: in the
 * same domain (by spelling, then by shared words, else the domain's list), or the same
 * service in the domain nearest by spelling.
 */
export function suggestService(
  domain: string,
  service: string,
  catalogue: ServiceCatalogue,
): ServiceSuggestion {
  const missing = `Home Assistant has no service ${domain}.${service}`;
  if (catalogue.hasDomain(domain)) {
    const services = catalogue.servicesOf(domain);
    const near = closest(service, services) ?? sharingWords(service, services);
    if (near !== undefined) {
      return {
        message: `${missing}; did you mean ${domain}.${near}?`,
        suggestion: `${domain}.${near}`,
      };
    }
    return { message: `${missing}; ${domain} has: ${listOf(services)}` };
  }
  const nearDomain = closest(domain, catalogue.domains());
  if (nearDomain === undefined) {
    return { message: `${missing} (there is no domain ${domain})` };
  }
  const services = catalogue.servicesOf(nearDomain);
  const near = services.includes(service) ? service : closest(service, services);
  if (near !== undefined) {
    return {
      message: `${missing}; did you mean ${nearDomain}.${near}?`,
      suggestion: `${nearDomain}.${near}`,
    };
  }
  return { message: `${missing}; did you mean domain ${nearDomain} (${listOf(services)})?` };
}

function listOf(items: readonly string[]): string {
  const shown = items.slice(0, MAX_LISTED).join(', ');
  return items.length > MAX_LISTED ? `${shown}, … (${items.length} in all)` : shown;
}

/**
 * The known entity id nearest to an unknown one, in the same domain: by spelling, else the
 * one whose object id contains it or is contained in it (`light.kitchen` for
 * `light.kitchen_light`).
 */
export function suggestEntity(entityId: string, known: Iterable<string>): string | undefined {
  const dot = entityId.indexOf('.');
  const prefix = entityId.slice(0, dot + 1);
  const object = entityId.slice(dot + 1);
  const same = [...known].filter((k) => k.startsWith(prefix) && k !== entityId);
  const near = closest(entityId, same);
  if (near !== undefined || object === '') return near;
  const containing = same
    .filter((k) => {
      const o = k.slice(prefix.length);
      return o.includes(object) || object.includes(o);
    })
    .sort((a, b) => Math.abs(a.length - entityId.length) - Math.abs(b.length - entityId.length));
  return containing[0];
}
