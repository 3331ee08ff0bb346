import { z } from 'zod';
import { CALLABLE_NAME_PATTERN, TOOL_NAME_PATTERN } from '../protocol/index.js';

/**
 * The id grammars of policy rules. Home Assistant entity, service, area, floor, label and
 * device ids hold only a-z, 0-9 and _ (entity and service ids one `.` between two such
 * parts); tool ids follow the wire protocol's grammar. A rule naming an id outside its grammar
 * could never match: a deny rule for `switch.freezеr` (a Cyrillic е) would leave
 * `switch.freezer` allowed. Such ids are refused at load, naming the first stray character.
 */

/** One character of an id: the grammar's, plus the glob wildcards where globs are allowed. */
const ID_CHAR = /^[a-z0-9_*?]$/;
const SERVICE_RE = /^[a-z0-9_*?]+\.[a-z0-9_*?]+$/;
const ENTITY_RE = /^[a-z0-9_]+\.[a-z0-9_]+$/;
const GLOB_OR_SLUG_RE = /^[a-z0-9_*?.]+$/;
const SLUG_RE = /^[a-z0-9_*?]+$/;
const HA_GRAMMAR =
  'Home Assistant ids hold only a-z, 0-9 and _ (and * ? in globs), so as written the rule could never match';

/**
 * `character 14 is "е" (U+0435)`: the first character of `id` outside `allowed`, counted in
 * characters (code points) from 1; null when there is none.
 */
function strayCharacter(id: string, allowed: RegExp): string | null {
  let at = 0;
  for (const ch of id) {
    at += 1;
    if (allowed.test(ch)) continue;
    const code = (ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
    return `character ${at} is ${JSON.stringify(ch)} (U+${code})`;
  }
  return null;
}

/** A string checked by `valid`; when it fails, `message` plus the stray character if any. */
function idSchema(valid: RegExp, allowed: RegExp, message: string) {
  return z.string().superRefine((id, ctx) => {
    if (valid.test(id)) return;
    const stray = strayCharacter(id, allowed);
    ctx.addIssue({ code: 'custom', message: stray === null ? message : `${message}: ${stray}` });
  });
}

/** A service id `domain.service`, or a glob over ids when it holds `*` or `?`. */
export const ServicePatternSchema = idSchema(
  SERVICE_RE,
  /^[a-z0-9_*?.]$/,
  'expected a service id domain.service matching ^[a-z0-9_]+\\.[a-z0-9_]+$, e.g. light.turn_on (globs * and ? allowed)',
);

/**
 * A tool id, as the wire protocol's subject builders check it: a tool's name, or an action's
 * full name `tool.action` (ADR 0092).
 */
export const ToolNameSchema = idSchema(
  CALLABLE_NAME_PATTERN,
  /^[a-z0-9_.]$/,
  'expected a tool id matching ^[a-z][a-z0-9_]*$, or an action tool.action (at most 64 characters), e.g. web_search or home_assistant.entities',
);

/** An action's own name, as a tool rule's `actions:` lists it (`entities`, `call_service`). */
export const ActionNameSchema = idSchema(
  TOOL_NAME_PATTERN,
  /^[a-z0-9_]$/,
  'expected an action name matching ^[a-z][a-z0-9_]*$, e.g. entities',
);

/** Selector ids are read lowercased and trimmed, as Home Assistant reads them. */
function selectorId(check: (id: string) => string | null) {
  return z
    .string()
    .transform((s) => s.trim().toLowerCase())
    .superRefine((id, ctx) => {
      const message = check(id);
      if (message !== null) ctx.addIssue({ code: 'custom', message });
    });
}

/** Why `id` (a `what`) holds a character outside `allowed`, or null. */
function strayProblem(id: string, what: string, allowed: RegExp): string | null {
  const stray = strayCharacter(id, allowed);
  if (stray === null) return null;
  const why = /[\s,]/u.test(id)
    ? 'selector ids hold no spaces or commas: list several as [light.a, light.b]'
    : HA_GRAMMAR;
  return `${what} ${JSON.stringify(id)}: ${stray}; ${why}`;
}

function slugProblem(id: string, what: string): string | null {
  return strayProblem(id, what, ID_CHAR) ?? (id === '' ? `${what} is empty` : null);
}

/** Why `id` is neither an entity id `domain.object_id` nor a glob over entity ids, or null. */
function entityProblem(id: string): string | null {
  if (ENTITY_RE.test(id)) return null;
  const isGlob = id.includes('*') || id.includes('?');
  if (isGlob && GLOB_OR_SLUG_RE.test(id)) return null;
  const stray = strayProblem(id, 'entity id', /^[a-z0-9_*?.]$/);
  if (stray !== null) return stray;
  return 'expected an entity id domain.object_id like light.kitchen (or all, or a glob)';
}

/** `entity_id`: `domain.object_id`, `all`, or a glob over entity ids. */
export const EntitySelectorSchema = selectorId((id) => (id === 'all' ? null : entityProblem(id)));

/** `denied_entities`: an entity id or a glob over entity ids (`lock.*`); `all` is no entity. */
export const EntityPatternSchema = selectorId((id) =>
  id === 'all'
    ? 'all is not an entity but the selector for every entity; a call naming it is already denied unless an allow rule lists all'
    : (entityProblem(id)?.replace(' (or all, or a glob)', ' (or a glob such as lock.*)') ?? null),
);

/** `device_id`, `area_id`, `floor_id`, `label_id`: one id, or a glob over ids. */
export const SlugSelectorSchema = (kind: string) =>
  selectorId((id) => (SLUG_RE.test(id) ? null : slugProblem(id, kind)));
