/**
 * How names are compared: the spoken form of a name, so that "the Kitchen-Light", "kitchen
 * light" and `kitchen_light` read alike. Pure.
 */

/** Words people say around a name that are not part of it. */
const FILLER: ReadonlySet<string> = new Set(['the', 'my', 'a', 'an', 'our', 'your']);

/** Words that name a domain's kind of thing: "the kitchen light" is the light "Kitchen". */
const DOMAIN_WORDS: Readonly<Record<string, readonly string[]>> = {
  light: ['light', 'lights', 'lamp', 'lamps'],
  switch: ['switch', 'switches', 'plug', 'plugs', 'socket'],
  fan: ['fan', 'fans'],
  cover: [
    'cover',
    'covers',
    'blind',
    'blinds',
    'shade',
    'shades',
    'shutter',
    'shutters',
    'curtain',
    'curtains',
  ],
  lock: ['lock', 'locks'],
  climate: ['thermostat', 'heating', 'climate'],
  media_player: ['speaker', 'speakers', 'tv', 'player'],
  sensor: ['sensor'],
  binary_sensor: ['sensor'],
  camera: ['camera'],
  vacuum: ['vacuum'],
  scene: ['scene'],
  script: ['script'],
};

/**
 * The words of a name: accents and case dropped, apostrophes removed ("kid's" -> "kids"),
 * every other mark (`_`, `.`, `-`, punctuation) a space.
 */
export function words(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/['’`]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter((w) => w !== '');
}

/** `words` joined by one space. */
export function normalise(text: string): string {
  return words(text).join(' ');
}

/** A query's words without filler ("the", "my"), unless that would leave none. */
export function queryWords(text: string): string[] {
  const all = words(text);
  const kept = all.filter((w) => !FILLER.has(w));
  return kept.length > 0 ? kept : all;
}

/** The words that name what entities of `domain` are (its own name among them). */
export function domainWords(domain: string): ReadonlySet<string> {
  return new Set([...words(domain), ...(DOMAIN_WORDS[domain] ?? [])]);
}

/** `list` without the domain's words, unless that would leave none. */
export function withoutDomainWords(
  list: readonly string[],
  domainSet: ReadonlySet<string>,
): string[] {
  const kept = list.filter((w) => !domainSet.has(w));
  return kept.length > 0 ? kept : [...list];
}
