import { z } from 'zod';
import { fieldMeta, type FieldKind, type FieldMeta } from './fields.js';
import { envVarName } from '../text/index.js';
import { ConfigSchema } from './schema.js';

/** One settable key of the configuration, read off {@link ConfigSchema}. */
interface ConfigField {
  readonly type: 'field';
  /** snake_case keys from the root, such as `['bus', 'url']`. */
  readonly path: readonly string[];
  readonly kind: FieldKind;
  readonly description: string;
  /** The literal default in `caesar.yaml` form; absent when there is none. */
  readonly default?: unknown;
  readonly meta: FieldMeta;
  /** Allowed values of an enum. */
  readonly options?: readonly string[];
  /** `CAESAR_BUS__URL`. */
  readonly env: string;
}

/** A section (`bus`) or the open map of per-tool sections (`tools`, with `tools.limits`). */
export interface ConfigSection {
  readonly type: 'section' | 'map';
  readonly path: readonly string[];
  readonly description: string;
  readonly default?: unknown;
  readonly meta: FieldMeta;
  readonly children: readonly ConfigNode[];
  readonly env: string;
}

export type ConfigNode = ConfigField | ConfigSection;

interface Unwrapped {
  inner: z.ZodType;
  description: string | undefined;
  meta: FieldMeta;
  default?: unknown;
}

/** Peels default/prefault/optional/pipe wrappers, collecting description, default and meta. */
function unwrap(schema: z.ZodType): Unwrapped {
  const out: Unwrapped = { inner: schema, description: undefined, meta: {} };
  let s = schema;
  for (;;) {
    out.description ??= s.description;
    out.meta = { ...fieldMeta.get(s), ...out.meta };
    if ((s instanceof z.ZodDefault || s instanceof z.ZodPrefault) && !('default' in out)) {
      out.default = s.def.defaultValue;
    }
    if (s instanceof z.ZodDefault || s instanceof z.ZodPrefault || s instanceof z.ZodOptional) {
      s = s.unwrap() as z.ZodType;
    } else if (s instanceof z.ZodPipe && out.meta.kind === undefined) {
      s = s.in as z.ZodType;
    } else {
      out.inner = s;
      return out;
    }
  }
}

function kindOf(path: readonly string[], u: Unwrapped): FieldKind {
  if (u.meta.kind !== undefined) return u.meta.kind;
  if (u.inner instanceof z.ZodEnum) return 'enum';
  if (u.inner instanceof z.ZodNumber) return 'integer';
  if (u.inner instanceof z.ZodBoolean) return 'boolean';
  if (u.inner instanceof z.ZodString) return 'string';
  throw new Error(`config schema: no field kind for '${path.join('.')}'`);
}

function describeNode(path: readonly string[], schema: z.ZodType): ConfigNode {
  const u = unwrap(schema);
  const description = u.description ?? '';
  const base = { path, description, env: envVarName(path), meta: u.meta };
  const withDefault = 'default' in u ? { default: u.default } : {};
  if (u.inner instanceof z.ZodObject) {
    const shape = u.inner.shape as Record<string, z.ZodType>;
    const children = Object.entries(shape).map(([k, v]) => describeNode([...path, k], v));
    // `tools`: an open map of tool sections with named keys of its own (`tools.limits`)
    const type = isOpen(u.inner) ? 'map' : 'section';
    return { type, ...base, ...withDefault, children };
  }
  if (u.inner instanceof z.ZodRecord) {
    return { type: 'map', ...base, ...withDefault, children: [] };
  }
  const kind = kindOf(path, u);
  const options = u.inner instanceof z.ZodEnum ? { options: u.inner.options as string[] } : {};
  return { type: 'field', ...base, ...withDefault, kind, ...options };
}

/** An object that takes keys beyond its shape (`.catchall(…)`), as `tools` does. */
function isOpen(schema: z.ZodObject): boolean {
  const rest = schema.def.catchall;
  return rest !== undefined && !(rest instanceof z.ZodNever);
}

let root: ConfigSection | undefined;

/** The configuration as a tree of sections and fields, in schema order. */
export function configTree(): ConfigSection {
  root ??= describeNode([], ConfigSchema) as ConfigSection;
  return root;
}

/** Every node below the root, depth first. */
export function configNodes(node: ConfigSection = configTree()): ConfigNode[] {
  return node.children.flatMap((c) => (c.type === 'field' ? [c] : [c, ...configNodes(c)]));
}

/** The node at a snake_case path, if the schema has one (paths under `tools` have none). */
export function configNodeAt(path: readonly string[]): ConfigNode | undefined {
  const key = path.join('.');
  return configNodes().find((n) => n.path.join('.') === key);
}

/** Known child keys of the section at `path`, for "did you mean" hints. */
export function knownKeysAt(path: readonly PropertyKey[]): string[] {
  const node = path.length === 0 ? configTree() : configNodeAt(path.map(String));
  return node && node.type !== 'field' ? node.children.map((c) => c.path.at(-1) ?? '') : [];
}
