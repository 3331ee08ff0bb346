import {
  isServiceCallTool,
  CallServiceInputSchema,
  fieldIssuesOf,
  type CallServiceInput,
  type FieldIssue,
} from '../../protocol/index.js';
import type { RegisteredTool } from '../registry/index.js';
import { SchemaValidator } from '../../json-schema/index.js';

type Check = { ok: true } | { ok: false; problems: FieldIssue[] };

/** An input that passed, with the `call_service` input as the brain's own schema parsed it. */
type InputCheck = { ok: true; service?: CallServiceInput } | { ok: false; problems: FieldIssue[] };

/** What the check reads of a live tool: the spec it enforces and that spec's digest. */
export type LiveSchema = Pick<RegisteredTool, 'spec' | 'specSha256'>;

/**
 * The brain's one check of a tool input, at its edge and before the policy judges the call
 * (ADR 0045): the brain's own schema for the inputs it reads, then the JSON Schema the live
 * tool announced. The worker checks the input again where it arrives over NATS; nothing in
 * between checks it a third time.
 */
export class ToolInputCheck {
  readonly #schemas = new SchemaValidator();

  input(tool: string, live: LiveSchema | undefined, input: unknown): InputCheck {
    // the one tool input the brain reads itself: the policy governs `call_service` by
    // `domain.service` and its targets, so that shape is the brain's own (src/protocol),
    // checked whatever schema a worker announced for the tool and whether or not one is live
    if (!isServiceCallTool(tool)) {
      return live === undefined
        ? { ok: true }
        : this.#schemas.checkInput(live.spec, live.specSha256, input);
    }
    const own = CallServiceInputSchema.safeParse(input);
    if (!own.success) return { ok: false, problems: fieldIssuesOf(own.error) };
    if (live === undefined) return { ok: true, service: own.data };
    const worker = this.#schemas.checkInput(live.spec, live.specSha256, input);
    return worker.ok ? { ok: true, service: own.data } : worker;
  }

  /** A reply's result against the output schema the tool announced (the worker's word). */
  output(live: LiveSchema, result: unknown): Check {
    return this.#schemas.checkOutput(live.spec, live.specSha256, result);
  }
}
