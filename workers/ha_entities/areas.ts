import { InvalidInputError } from '../../src/legion/index.js';
import { closest } from '../../src/legion/index.js';
import type { Registry } from '../../src/clients/home-assistant/index.js';
import { normalise } from './words.js';

/** Areas listed when the one asked for does not exist. */
const MAX_LISTED = 20;

/**
 * The ids of the areas `area` names: by id, name or alias, compared as spoken words.
 * @throws InvalidInputError naming the nearest area and listing the others when none does.
 */
export function resolveArea(area: string, registry: Registry): ReadonlySet<string> {
  const wanted = normalise(area);
  const ids = new Set<string>();
  for (const a of registry.areas.values()) {
    const names = [a.id, a.name, ...a.aliases].map(normalise);
    if (names.includes(wanted)) ids.add(a.id);
  }
  if (ids.size > 0) return ids;
  const names = [...registry.areas.values()].map((a) => a.name).sort();
  const near = closest(
    wanted,
    names.map((n) => normalise(n)),
  );
  const nearName = names.find((n) => normalise(n) === near);
  const hint = nearName === undefined ? '' : `did you mean ${nearName}? `;
  const listed = names.slice(0, MAX_LISTED).join(', ') + (names.length > MAX_LISTED ? ', …' : '');
  throw new InvalidInputError(
    `Home Assistant has no area '${area}'; ${hint}areas: ${listed || 'none'}`,
    { details: [{ path: 'area', message: 'no such area' }] },
  );
}
