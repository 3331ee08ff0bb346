import { z } from 'zod';
import type { compileJsonSchema } from '../json-schema/index.js';

/** The JSON Schema engine's compile, passed in: it loads only where a JSON Schema is read. */
export type CompileJsonSchema = typeof compileJsonSchema;

/**
 * An operator's JSON Schema as the zod type `defineTool` takes (ADR 0079): a value is checked,
 * and its declared `default`s filled, by the same engine the brain checks the announced
 * schema with, so the two never disagree; the schema rides along as metadata, so the spec
 * announces it as written. Module tools (ADR 0055) and MCP servers' tools (ADR 0095) use it. Throws when the schema is unusable, naming why.
 */
export function announcedType(
  compile: CompileJsonSchema,
  schema: Record<string, unknown>,
): z.ZodType {
  const check = compile(schema);
  // `id` is zod's registry key in metadata, not a 2020-12 keyword: it would move the schema
  const { id: _id, ...written } = schema;
  return z
    .unknown()
    .check((ctx) => {
      const checked = check(ctx.value);
      if (checked.ok) {
        ctx.value = checked.value;
        return;
      }
      for (const p of checked.problems) {
        const path = p.path === '' ? [] : p.path.split('.');
        ctx.issues.push({ code: 'custom', message: p.message, path, input: ctx.value });
      }
    })
    .meta(written);
}
