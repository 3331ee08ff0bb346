/**
 * What a Home Assistant service call can reach beyond its own domain, as Home Assistant's own
 * code decides it (see docs/policy.md, "Entity rules", and ADR 0061 for the sources):
 *
 * - `homeassistant.turn_on`, `turn_off` and `toggle` group their entities by domain and call
 *   the same service in each entity's domain (`homeassistant/components/homeassistant/
 *   __init__.py`, `async_handle_turn_service`; the "Generic turn on/off/toggle" action pages:
 *   "passes the request on to the matching action for each entity's domain"). So
 *   `homeassistant.turn_on` on `cover.garage_door` runs `cover.turn_on` on it.
 * - An entity service of an entity platform acts only on its own domain's entities, whatever
 *   the selector (`helpers/service.py`, entity_service_call). The platforms are Home
 *   Assistant's `Platform` enum (`homeassistant/const.py`) and the helper integrations whose
 *   services are entity services; `scene` is left out: turning a scene on sets any entity.
 * - Areas, devices, floors, labels, `all` and old-style groups (`group.*`, expanded into
 *   their members: `helpers/target.py`, `expand_group=True`) name entities the policy cannot
 *   list.
 */

/** The generic services Home Assistant forwards to each entity's own domain. */
const FORWARDED: ReadonlySet<string> = new Set([
  'homeassistant.turn_on',
  'homeassistant.turn_off',
  'homeassistant.toggle',
]);

/** Domains whose services act on their own entities only, by any selector. */
const CONFINED: ReadonlySet<string> = new Set([
  // homeassistant/const.py, class Platform (scene and conversation left out on purpose)
  'air_quality',
  'alarm_control_panel',
  'binary_sensor',
  'button',
  'calendar',
  'camera',
  'climate',
  'cover',
  'date',
  'datetime',
  'device_tracker',
  'event',
  'fan',
  'geo_location',
  'humidifier',
  'image',
  'image_processing',
  'lawn_mower',
  'light',
  'lock',
  'media_player',
  'notify',
  'number',
  'remote',
  'select',
  'sensor',
  'siren',
  'stt',
  'switch',
  'text',
  'time',
  'todo',
  'tts',
  'update',
  'vacuum',
  'valve',
  'wake_word',
  'water_heater',
  'weather',
  // helper integrations: entity services on their own entities
  'counter',
  'input_boolean',
  'input_button',
  'input_datetime',
  'input_number',
  'input_select',
  'input_text',
  'timer',
]);

/** Entities of this domain are old-style groups: Home Assistant acts on their members. */
export const GROUP_DOMAIN = 'group';

/**
 * Services that name entities in their data rather than their target: the keys of
 * `entities` (entity id -> state) and the ids in `snapshot_entities` (`scene.create`, whose
 * scene restores them when it is turned on).
 */
export const SCENE_ENTITY_SERVICES: ReadonlySet<string> = new Set(['scene.apply', 'scene.create']);

/** The domain of SCENE_ENTITY_SERVICES. */
export const SCENE_DOMAIN = 'scene';

/** Whether Home Assistant runs `domain.<this service>` in each targeted entity's domain. */
export function isForwarded(key: string): boolean {
  return FORWARDED.has(key);
}

/** Whether every service of `domain` acts only on entities of `domain`. */
export function isConfined(domain: string): boolean {
  return CONFINED.has(domain);
}

/** Whether `id` (an entity id) is in `domain`, without allocating. */
export function inDomain(id: string, domain: string): boolean {
  return id.length > domain.length && id.charCodeAt(domain.length) === 46 && id.startsWith(domain);
}

/** The domain of an entity id, or null when it has none (`none`, a malformed id). */
export function domainOf(id: string): string | null {
  const dot = id.indexOf('.');
  return dot > 0 ? id.slice(0, dot) : null;
}
