import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { RE2JS } from 're2js';
import { MAX_FIELD_ISSUES, type FieldIssue, type ToolSpec } from '../../protocol/index.js';

type SchemaCheck = { ok: true } | { ok: false; problems: FieldIssue[] };

/** Largest JSON Schema the brain compiles; a bigger one is refused, not compiled. */
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

interface Pair {
  input: ValidateFunction;
  output: ValidateFunction;
}

/**
 * Validates tool inputs and outputs against the JSON Schemas a tool announced in its spec
 * (draft 2020-12, derived from its zod schemas). Schemas come from authenticated worker
 * identities; they are still size-capped, compiled with no remote `$ref` loading, and their
 * patterns run on RE2.
 * Compiled validators are cached by the spec's digest.
 */
export class SchemaValidator {
  readonly #ajv: Ajv2020;
  readonly #cache = new Map<string, Pair | Error>();

  constructor() {
    this.#ajv = new Ajv2020({
      allErrors: true,
      strict: false,
      validateSchema: true,
      code: { regExp: re2Engine },
    });
    addFormats(this.#ajv);
  }

  checkInput(spec: ToolSpec, specSha256: string, value: unknown): SchemaCheck {
    return this.#check(spec, specSha256, 'input', value);
  }

  checkOutput(spec: ToolSpec, specSha256: string, value: unknown): SchemaCheck {
    return this.#check(spec, specSha256, 'output', value);
  }

  #check(spec: ToolSpec, digest: string, which: keyof Pair, value: unknown): SchemaCheck {
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

  #compiled(spec: ToolSpec, digest: string): Pair | Error {
    const hit = this.#cache.get(digest);
    if (hit) return hit;
    let made: Pair | Error;
    try {
      made = { input: this.#compile(spec.input_schema), output: this.#compile(spec.output_schema) };
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

  #compile(schema: Record<string, unknown>): ValidateFunction {
    if (JSON.stringify(schema).length > MAX_SCHEMA_BYTES) {
      throw new Error(`schema larger than ${MAX_SCHEMA_BYTES} bytes`);
    }
    // `$id`s would collide across versions of a tool in ajv's global schema map
    const { $id: _id, ...rest } = schema;
    return this.#ajv.compile(rest);
  }
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
      e.keyword === 'additionalProperties' ? 'unknown field' : (e.message ?? e.keyword);
    return { path, message };
  });
}
