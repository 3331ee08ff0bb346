import type { PolicyFile } from './schema.js';

/** A literal entity id (`light.kitchen`): not `all`, not a glob. */
const LITERAL_ENTITY = /^[a-z0-9_]+\.[a-z0-9_]+$/;

/**
 * The entity ids the policy names literally, sorted, each once: in the targets of its
 * `allowed_services` rules and in its `denied_entities` rules. The brain matches a spoken
 * device name against them when the caller may not look names up with `ha_entities`
 * (ADR 0088); globs and `all` name no one entity and are left out.
 */
export function namedEntities(
  spec: Pick<PolicyFile, 'allowed_services' | 'denied_entities'>,
): readonly string[] {
  const ids = new Set<string>();
  for (const rule of spec.allowed_services) {
    for (const id of rule.target?.entity_id ?? []) ids.add(id);
  }
  for (const rule of spec.denied_entities) for (const id of rule.entity_id) ids.add(id);
  return Object.freeze([...ids].filter((id) => LITERAL_ENTITY.test(id)).sort());
}
