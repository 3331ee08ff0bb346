/**
 * Schema engines (ADR 0079): one tool input checked by each engine the tree holds, per
 * validation, on a typical `call_service` input (a light with two targets and two data keys):
 *
 * - zod: the brain's own `CallServiceInputSchema` (the value the policy reads, ADR 0078);
 * - ajv on RE2: the same tool's announced JSON Schema (draft 2020-12, derived from that zod
 *   schema), compiled by `SchemaValidator`, the brain's check of any live tool (ADR 0059);
 * - `z.fromJSONSchema`: the same announced JSON Schema turned back into zod, as the module
 *   loader did for an operator's tool (ADR 0055) before ADR 0079;
 * - a hostile pattern (`^(\w+\s?)*$`) on a 23-character string that fails it: RE2 (ajv)
 *   against JavaScript's backtracking RegExp (what `z.fromJSONSchema` compiles it to).
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/run.js schema
 */
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { SchemaValidator } from '../src/json-schema/index.js';
import { CallServiceInputSchema } from '../src/protocol/index.js';
import { opsPerSecond, type BenchContext } from './harness.js';

const INPUT = {
  domain: 'light',
  service: 'turn_on',
  target: { entity_id: ['light.kitchen', 'light.hall'] },
  data: { brightness_pct: 60, color_name: 'warm_white' },
};

export async function run(ctx: BenchContext): Promise<void> {
  await Promise.resolve();
  ctx.section('schema engines: one call_service input (ADR 0079)');
  const announced = z.toJSONSchema(CallServiceInputSchema, {
    target: 'draft-2020-12',
    io: 'input',
  });
  const validator = new SchemaValidator();
  const spec = { input_schema: announced, output_schema: {} };
  const fromJson = z.fromJSONSchema(announced);
  if (!validator.checkInput(spec, 'bench', INPUT).ok) throw new Error('ajv refused');
  if (!fromJson.safeParse(INPUT).success) throw new Error('fromJSONSchema refused');
  let sink = 0;
  const zod = opsPerSecond(() => {
    sink += CallServiceInputSchema.safeParse(INPUT).success ? 1 : 0;
  });
  const ajv = opsPerSecond(() => {
    sink += validator.checkInput(spec, 'bench', INPUT).ok ? 1 : 0;
  });
  const back = opsPerSecond(() => {
    sink += fromJson.safeParse(INPUT).success ? 1 : 0;
  });
  ctx.figure('baseline: zod CallServiceInputSchema', 1e6 / zod, 'us/validation');
  ctx.figure('ajv on RE2, the announced JSON Schema', 1e6 / ajv, 'us/validation', {
    baseline: 1e6 / zod,
  });
  ctx.figure('z.fromJSONSchema of the announced JSON Schema', 1e6 / back, 'us/validation', {
    baseline: 1e6 / zod,
  });

  const wrong = { ...INPUT, target: { entity_id: 7 }, extra: true };
  const zodBad = opsPerSecond(() => {
    sink += CallServiceInputSchema.safeParse(wrong).success ? 1 : 0;
  });
  const ajvBad = opsPerSecond(() => {
    sink += validator.checkInput(spec, 'bench', wrong).ok ? 1 : 0;
  });
  ctx.figure('baseline: zod, a refused input (issues made)', 1e6 / zodBad, 'us/validation');
  ctx.figure('ajv on RE2, a refused input (issues made)', 1e6 / ajvBad, 'us/validation', {
    baseline: 1e6 / zodBad,
  });

  const hostile = {
    type: 'object',
    properties: { q: { type: 'string', pattern: '^(\\w+\\s?)*$' } },
  };
  const evil = { q: `${'a'.repeat(22)}!` };
  const hostileSpec = { input_schema: hostile, output_schema: {} };
  let t0 = performance.now();
  sink += validator.checkInput(hostileSpec, 'hostile', evil).ok ? 1 : 0;
  ctx.figure('hostile pattern, ajv on RE2 (compile + one check)', performance.now() - t0, 'ms');
  const hostileZod = z.fromJSONSchema(hostile as Parameters<typeof z.fromJSONSchema>[0]);
  t0 = performance.now();
  sink += hostileZod.safeParse(evil).success ? 1 : 0;
  ctx.figure(
    'hostile pattern, z.fromJSONSchema (JS RegExp, one check)',
    performance.now() - t0,
    'ms',
  );
  if (sink === -1) console.log(sink);
}
