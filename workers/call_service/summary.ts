import type { EntityOutcome } from './schema.js';

/** Domains whose entities are simply `on` or `off`. */
const ON_OFF_DOMAINS: ReadonlySet<string> = new Set([
  'automation',
  'fan',
  'humidifier',
  'input_boolean',
  'light',
  'remote',
  'siren',
  'switch',
]);

/** State a service leaves an entity in, for domains whose services say so plainly. */
const FIXED: Readonly<Record<string, string>> = {
  'lock.lock': 'locked',
  'lock.unlock': 'unlocked',
  'lock.open': 'open',
  'cover.open_cover': 'open',
  'cover.close_cover': 'closed',
  'media_player.turn_off': 'off',
  'climate.turn_off': 'off',
  'vacuum.return_to_base': 'docked',
  'alarm_control_panel.alarm_disarm': 'disarmed',
};

/**
 * The state `service` should leave the entity in, when that is plain (`light.turn_on` ->
 * `on`, `switch.toggle` from `off` -> `on`, `lock.unlock` -> `unlocked`); undefined when it
 * is not (scenes, scripts, `media_player.turn_on`). `homeassistant.*` services act on any
 * domain, so the entity's own domain decides.
 */
export function expectedState(
  callDomain: string,
  service: string,
  entityId: string,
  before: string | null,
): string | undefined {
  const domain = callDomain === 'homeassistant' ? (entityId.split('.')[0] ?? '') : callDomain;
  const fixed = FIXED[`${domain}.${service}`];
  if (fixed !== undefined) return fixed;
  if (!ON_OFF_DOMAINS.has(domain)) return undefined;
  if (service === 'turn_on') return 'on';
  if (service === 'turn_off') return 'off';
  if (service === 'toggle') return before === 'on' ? 'off' : before === 'off' ? 'on' : undefined;
  return undefined;
}

/** What happened to one entity, as the summary words it. */
export interface Observed extends EntityOutcome {
  /** The state the service should have left it in, if plain. */
  readonly expected?: string | undefined;
}

/** Entities named in a summary; the rest are counted. */
const MAX_NAMED = 5;

/** "Kitchen Light: off -> on", "Kitchen Light was already on", "Kitchen Light stayed off". */
export function describeEntity(e: Observed): string {
  const who = e.name ?? e.entity_id;
  if (e.after === null) {
    return e.before === null
      ? `${who} could not be read`
      : `${who} was ${e.before} and could not be read back`;
  }
  if (e.before === null) return `${who}: now ${e.after}`;
  if (e.before !== e.after) return `${who}: ${e.before} -> ${e.after}`;
  if (e.changed) return `${who} stayed ${e.after} (its attributes changed)`;
  if (e.expected !== undefined && e.expected === e.before) return `${who} was already ${e.before}`;
  return `${who} stayed ${e.after}`;
}

/**
 * The one-sentence summary of a call: what each entity did, or what Home Assistant reported
 * when the targets could not be read (areas, devices, labels).
 */
export function summarise(
  key: string,
  entities: readonly Observed[],
  context: { readonly targets: string; readonly verified: boolean },
): string {
  const named = entities.slice(0, MAX_NAMED).map(describeEntity);
  const more = entities.length - named.length;
  const list = named.join('; ') + (more > 0 ? `; and ${more} more` : '');
  if (context.verified) return `${list}.`;
  const on = context.targets === '' ? '' : ` on ${context.targets}`;
  if (entities.length === 0) return `${key} ran${on}; Home Assistant reported no state change.`;
  return `${key} ran${on}; Home Assistant reported: ${list}.`;
}
