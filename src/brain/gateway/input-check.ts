import type { ZodType } from 'zod';
import {
  CALL_SERVICE_TOOL,
  CallServiceInputSchema,
  fieldIssuesOf,
  type FieldIssue,
} from '../../protocol/index.js';
import type { RegisteredTool } from '../registry/index.js';
import { SchemaValidator } from './schema-validator.js';

type InputCheck = { ok: true } | { ok: false; problems: FieldIssue[] };

/** What the check reads of a live tool: the spec it enforces and that spec's digest. */
export type LiveSchema = Pick<RegisteredTool, 'spec' | 'specSha256'>;

/**
 * Tool inputs the brain reads itself: the policy governs `call_service` by `domain.service`
 * and its target selectors, so that shape is the brain's own (src/protocol), checked whatever
 * schema a worker announced for the tool and whether or not one is live.
 */
const BRAIN_SCHEMAS: ReadonlyMap<string, ZodType> = new Map([
  [CALL_SERVICE_TOOL, CallServiceInputSchema],
]);

/**
 * The brain's one check of a tool input, at its edge and before the policy judges the call
 * (ADR 0045): the brain's own schema for the inputs it reads, then the JSON Schema the live
 * tool announced. The worker checks the input again where it arrives over NATS; nothing in
 * between checks it a third time.
 */
export class ToolInputCheck {
  readonly #schemas = new SchemaValidator();

  input(tool: string, live: LiveSchema | undefined, input: unknown): InputCheck {
    const own = BRAIN_SCHEMAS.get(tool)?.safeParse(input);
    if (own?.success === false) return { ok: false, problems: fieldIssuesOf(own.error) };
    if (live === undefined) return { ok: true };
    return this.#schemas.checkInput(live.spec, live.specSha256, input);
  }

  /** A reply's result against the output schema the tool announced (the worker's word). */
  output(live: LiveSchema, result: unknown): InputCheck {
    return this.#schemas.checkOutput(live.spec, live.specSha256, result);
  }
}
