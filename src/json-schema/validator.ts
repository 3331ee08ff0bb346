import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { RE2JS } from 're2js';
import { MAX_FIELD_ISSUES, type FieldIssue } from '../protocol/index.js';

/** A value against a JSON Schema: it passed, or the fields at fault (at most 20). */
export type SchemaCheck = { ok: true } | { ok: false; problems: FieldIssue[] };

/** The two JSON Schemas a tool announces in its spec; nothing else of the spec is read here. */
export interface AnnouncedSchemas {
  readonly input_schema: Record<string, unknown>;
  readonly output_schema: Record<string, unknown>;
}

/** Largest JSON Schema compiled; a bigger one is refused, not compiled. */
const MAX_SCHEMA_BYTES = 64 * 1024;
/** Compiled validators kept (by spec digest); the oldest is dropped past this. */
const CACHE_LIMIT = 256;

// ajv-formats is CommonJS with `exports.default`; under NodeNext the import is the module.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv2020) => unknown }).default;

/**
 * `pattern` keywords run on RE2 (the re2js port), never on JavaScript's backtracking engine:
 * a schema comes from a worker, and a worker identity that is taken over could otherwise
 * announce a pattern such as `^(\w+\s?)*$` that holds the brain's event loop for minutes on
 * one reply (ADR 0059). RE2 is linear in the input; a pattern it cannot run (lookaround,
 * backreferences) throws at compile, and the schema is unusable, which fails its calls
 * closed. Search semantics, as JSON Schema wants: `test` finds the pattern anywhere.
 */
const re2Engine = Object.assign(
  (pattern: string): { test: (s: string) => boolean; toString: () => string } => {
    let re: RE2JS;
    try {
      re = RE2JS.compile(pattern);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new Error(
        `pattern ${JSON.stringify(pattern.slice(0, 200))} is not RE2 syntax (no lookaround or backreferences): ${why}`,
        { cause: err },
      );
    }
    // ajv caches compiled patterns by `toString()`: each must name its own pattern
    return { test: (s) => re.test(s), toString: () => `re2:${pattern}` };
  },
  { code: 're2js' },
);

/**
 * The one ajv set-up (ADR 0079): draft 2020-12, every error, formats, no remote `$ref`
 * loading, patterns on RE2. `useDefaults` fills a missing property's `default` into the
 * value checked, which only the worker's side does (a module tool, ADR 0055); the brain
 * checks and never changes a value.
 */
function newAjv(useDefaults: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: false,
    validateSchema: true,
    useDefaults,
    code: { regExp: re2Engine },
  });
  addFormats(ajv);
  return ajv;
}

function compileWith(ajv: Ajv2020, schema: Record<string, unknown>): ValidateFunction {
  if (JSON.stringify(schema).length > MAX_SCHEMA_BYTES) {
    throw new Error(`schema larger than ${MAX_SCHEMA_BYTES} bytes`);
  }
  // `$id`s would collide across versions of a tool in ajv's global schema map
  const { $id: _id, ...rest } = schema;
  return ajv.compile(rest);
}

interface Pair {
  input: ValidateFunction;
  output: ValidateFunction;
}

/**
 * Validates tool inputs and outputs against the JSON Schemas a tool announced in its spec
 * (draft 2020-12). Schemas come from authenticated worker identities; they are still
 * size-capped, compiled with no remote `$ref` loading, and their patterns run on RE2.
 * Compiled validators are cached by the spec's digest.
 */
export class SchemaValidator {
  readonly #ajv = newAjv(false);
  readonly #cache = new Map<string, Pair | Error>();

  checkInput(spec: AnnouncedSchemas, specSha256: string, value: unknown): SchemaCheck {
    return this.#check(spec, specSha256, 'input', value);
  }

  checkOutput(spec: AnnouncedSchemas, specSha256: string, value: unknown): SchemaCheck {
    return this.#check(spec, specSha256, 'output', value);
  }

  #check(spec: AnnouncedSchemas, digest: string, which: keyof Pair, value: unknown): SchemaCheck {
    const pair = this.#compiled(spec, digest);
    if (pair instanceof Error) {
      return {
        ok: false,
        problems: [{ path: '', message: `tool schema unusable: ${pair.message}` }],
      };
    }
    const validate = pair[which];
    if (validate(value)) return { ok: true };
    return { ok: false, problems: problemsOf(validate.errors ?? []) };
  }

  #compiled(spec: AnnouncedSchemas, digest: string): Pair | Error {
    const hit = this.#cache.get(digest);
    if (hit) return hit;
    let made: Pair | Error;
    try {
      made = {
        input: compileWith(this.#ajv, spec.input_schema),
        output: compileWith(this.#ajv, spec.output_schema),
      };
    } catch (err) {
      made = err instanceof Error ? err : new Error(String(err));
    }
    if (this.#cache.size >= CACHE_LIMIT) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    this.#cache.set(digest, made);
    return made;
  }
}

/** A value checked by {@link compileJsonSchema}: its copy with defaults filled, or the faults. */
export type FilledCheck = { ok: true; value: unknown } | { ok: false; problems: FieldIssue[] };

let filling: Ajv2020 | undefined;

/**
 * One JSON Schema compiled on the same engine as the brain's check of it (ADR 0079), for the
 * side that runs the tool: the returned function checks a copy of the value and fills the
 * `default`s the schema declares into it. Throws when the schema is unusable (too large, not
 * a 2020-12 schema, a pattern RE2 cannot run), naming why.
 */
export function compileJsonSchema(
  schema: Record<string, unknown>,
): (value: unknown) => FilledCheck {
  filling ??= newAjv(true);
  const validate = compileWith(filling, schema);
  return (value) => {
    const copy: unknown = structuredClone(value);
    if (validate(copy)) return { ok: true, value: copy };
    return { ok: false, problems: problemsOf(validate.errors ?? []) };
  };
}

function problemsOf(errors: ErrorObject[]): FieldIssue[] {
  return errors.slice(0, MAX_FIELD_ISSUES).map((e) => {
    const base = e.instancePath.replace(/^\//, '').replaceAll('/', '.');
    const extra =
      e.keyword === 'required'
        ? (e.params as { missingProperty: string }).missingProperty
        : e.keyword === 'additionalProperties'
          ? (e.params as { additionalProperty: string }).additionalProperty
          : undefined;
    const path = extra === undefined ? base : base ? `${base}.${extra}` : extra;
    const message =
      extra !== undefined && e.keyword === 'additionalProperties'
        ? `unknown field '${extra}'` // the words of `fieldIssuesOf` (ADR 0079)
        : (e.message ?? e.keyword);
    return { path, message };
  });
}
