import { z } from 'zod';
import { ErrorBodySchema, HostCapacitySchema, WorkerRestartsSchema } from '../../protocol/index.js';
import {
  MAX_GROUPS,
  PRINCIPAL_NAME_RE,
  PRINCIPAL_NAME_RULE,
  type Principal,
} from '../../policy/principal.js';

/**
 * The brain's HTTP API, as shapes: request and response bodies of `/v1/*`. The server
 * (src/brain/http) validates requests with these schemas and the CLI client
 * (`caesar chat`, `caesar invoke`, `caesar confirm`) parses responses with them, so both
 * ends read one definition. docs/api.md documents them.
 */

/** Who asked: the API token's name (`actor` in the audit log) and the request id. */
export interface Caller {
  /** Token name for HTTP callers; `cli` / `trigger:<name>` for in-process callers. */
  readonly actor: string;
  /** The HTTP request id, when the call came over HTTP. */
  readonly requestId?: string;
  /** The conversation the call belongs to, when it came from chat. */
  readonly sessionId?: string;
  /**
   * Whom the policy judges (ADR 0096): the verified token's principal and groups, set by the
   * HTTP layer from the token alone. Absent: the principal named `actor`, with no groups, as
   * a token without a principal is.
   */
  readonly principal?: Principal;
}

/** The principal a caller is judged as: its own, else the one named `actor` (ADR 0096). */
export function principalOf(caller: Caller): Principal {
  return caller.principal ?? { name: caller.actor, groups: [] };
}

/**
 * What happened to one tool call, from the caller's side:
 * - `ok`: it ran and returned `result`;
 * - `failed`: it was allowed but did not produce a result (`error`: invalid input, no worker,
 *   timeout, the tool's own failure, audit unavailable);
 * - `denied` / `rate_limited`: the policy refused it (`reason`, `rule`); never dispatched;
 * - `confirmation_required`: it waits for a human (`confirmation`); not dispatched yet;
 * - `rejected`: a human rejected it, or its confirmation expired or was voided.
 */
export const CALL_OUTCOMES = [
  'ok',
  'failed',
  'denied',
  'rate_limited',
  'confirmation_required',
  'rejected',
] as const;
export type CallOutcome = (typeof CALL_OUTCOMES)[number];

/**
 * Who asked for a held call, why it is held and what the model had read (ADR 0068): the
 * same account on a ticket (the answer of the call that was held), on each entry of
 * `GET /v1/confirmations`, on `caesar confirm` and on the dashboard. Absent from a brain
 * before issue 27.
 */
const HeldCallAccount = {
  /**
   * Who asked (ADR 0065): `model` (a language model, in a turn opened by token `actor`),
   * `intent` (a local rule matched on the operator's own words) or `api` (the token itself).
   */
  asked_by: z
    .object({
      kind: z.enum(['model', 'intent', 'api']),
      actor: z.string(),
      /** The principal of the token `actor` (ADR 0096); absent from a brain before issue 32. */
      principal: z.string().optional(),
      session_id: z.string().optional(),
      intent: z.string().optional(),
    })
    .optional(),
  /**
   * The flow rules that held it: a model's call after untrusted or private content, and
   * where that was said (`<rule> (<file:line:col>)`, or `flow default`).
   */
  gated_by: z
    .array(
      z.object({
        gate: z.enum(['after_untrusted', 'after_private']),
        action: z.enum(['allow', 'confirm', 'deny']),
        set_by: z.string(),
      }),
    )
    .optional(),
  /**
   * What the model had read before it asked: each untrusted or private tool result, with
   * where it came from and a short excerpt (control and invisible characters escaped as
   * `\uXXXX`). Empty for a call no model asked for.
   */
  read: z
    .array(
      z.object({
        tool: z.string(),
        decision_id: z.string(),
        trust: z.enum(['trusted', 'untrusted']),
        private: z.boolean(),
        sources: z.array(z.string()),
        excerpt: z.string(),
      }),
    )
    .optional(),
  /**
   * The tool's preflight warnings when the call was held (ADR 0091): a requirement its host
   * does not meet or that exceeds `tools.limits`. Non-empty: the preflight asked for this
   * confirmation (or added to the policy's).
   */
  preflight_warnings: z.array(z.string()).optional(),
  /**
   * Who may decide it, when the rule that held it names `approvers:` (ADR 0096): a token
   * whose principal, or one of whose groups, is listed. Absent: any token with `confirm`.
   */
  approvers: z.object({ principals: z.array(z.string()), groups: z.array(z.string()) }).optional(),
};

const ConfirmationTicketSchema = z.object({
  id: z.string(),
  /** Plain language: exactly what would run. */
  summary: z.string(),
  /** ISO-8601 UTC. */
  expires_at: z.string(),
  ...HeldCallAccount,
});
export type ConfirmationTicket = z.infer<typeof ConfirmationTicketSchema>;

export const ToolCallReportSchema = z.object({
  tool: z.string(),
  input: z.unknown(),
  outcome: z.enum(CALL_OUTCOMES),
  /** Why it was refused or failed, in words. */
  reason: z.string().optional(),
  /** The policy rule that decided (`rule.id`), when a rule did. */
  rule: z.string().optional(),
  /**
   * Where that rule sits, `<file>:<line>:<col>`, in the policy that decided (`policy_sha256`):
   * the enforced policy, whose text may differ from the file on disk (`GET /v1/policy`).
   */
  rule_at: z.string().optional(),
  /** SHA-256 of the enforced policy that decided. */
  policy_sha256: z.string().optional(),
  result: z.unknown().optional(),
  error: ErrorBodySchema.optional(),
  confirmation: ConfirmationTicketSchema.optional(),
  /**
   * What the result (or a worker's error) is as content, when a worker answered (ADR 0065):
   * `untrusted` text from outside or `trusted`, the operator's `private` data or not, and
   * where it came from. A model that reads it is judged by the policy's flow rules after.
   */
  label: z
    .object({
      trust: z.enum(['trusted', 'untrusted']),
      private: z.boolean(),
      sources: z.array(z.string()).optional(),
    })
    .optional(),
  /**
   * A call that runs as a job (ADR 0098): answered at once, `outcome: ok`, with the job's id
   * and `queued`; `GET /v1/jobs/{id}` follows it to its end.
   */
  job: z.object({ job_id: z.string(), status: z.string() }).optional(),
  decision_id: z.string(),
  duration_ms: z.number().nonnegative(),
});
export type ToolCallReport = z.infer<typeof ToolCallReportSchema>;

/** Where a job is (ADR 0098). */
export const JOB_STATUSES = ['queued', 'running', 'finished', 'failed', 'cancelled'] as const;

/** One job, as `GET /v1/jobs/{id}` and `caesar jobs show` show it (folded from its audit rows). */
export const JobViewSchema = z.object({
  /** The decision id of the call that submitted it. */
  id: z.string(),
  tool: z.string(),
  status: z.enum(JOB_STATUSES),
  delivery: z.enum(['at_most_once', 'at_least_once']),
  /** Who submitted it (the audit row's actor). */
  actor: z.string(),
  session_id: z.string().optional(),
  /** ISO-8601 UTC. */
  submitted_at: z.string(),
  started_at: z.string().optional(),
  ended_at: z.string().optional(),
  /** Which delivery ran (or runs) it: 1 first, more after a redelivery. */
  attempt: z.number().int().optional(),
  progress: z
    .object({ fraction: z.number().optional(), message: z.string().optional(), at: z.string() })
    .optional(),
  worker: z.object({ id: z.string(), host: z.string() }).optional(),
  result: z.unknown().optional(),
  error: z.object({ code: z.string(), message: z.string(), retryable: z.boolean() }).optional(),
  /** The job's message in the work-queue stream. */
  stream_seq: z.number().int(),
});
export type JobView = z.infer<typeof JobViewSchema>;
export type JobStatus = JobView['status'];

/** `GET /v1/jobs`: the newest first. */
export const JobListResponseSchema = z.object({ jobs: z.array(JobViewSchema) });
export type JobListResponse = z.infer<typeof JobListResponseSchema>;

/** `POST /v1/chat`. Only the new user message: history is kept server-side. */
export const ChatRequestSchema = z.strictObject({
  message: z.string().min(1),
  session_id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'expected 1-64 letters, digits, `_` or `-`')
    .optional(),
  /**
   * With `session_id`: start that session, owned by this token, when it does not exist yet
   * (a named session, such as `kitchen`), instead of answering 404 (ADR 0056).
   */
  create_session: z.boolean().optional(),
});
export type ChatRequest = z.infer<typeof ChatRequestSchema>;

export const ChatResponseSchema = z.object({
  session_id: z.string(),
  reply: z.string(),
  tool_calls: z.array(ToolCallReportSchema),
  iterations: z.number().int().nonnegative(),
  /** True when the planner stopped at `max_iterations`. */
  capped: z.boolean(),
  /** What produced the reply. */
  planner: z.enum(['intent', 'llm', 'none']),
});
export type ChatResponse = z.infer<typeof ChatResponseSchema>;

/**
 * One event of a streamed chat turn (`POST /v1/chat` with `Accept: text/event-stream`): the
 * SSE event name is `type`, its data the JSON of the rest. `text` carries the model's words
 * as they arrive; `tool_call` a call about to go to the gate (`call_id` is the model's, or
 * `intent`/`lookup` for calls a rule made); `tool_result` its report; `done` ends the stream
 * with the whole response, `error` with why it failed (the HTTP error body's `error`).
 */
export const ChatEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), delta: z.string() }),
  z.object({
    type: z.literal('tool_call'),
    call_id: z.string(),
    tool: z.string(),
    input: z.unknown(),
  }),
  z.object({ type: z.literal('tool_result'), call_id: z.string(), report: ToolCallReportSchema }),
  z.object({ type: z.literal('done'), response: ChatResponseSchema }),
  z.object({
    type: z.literal('error'),
    error: z.object({ code: z.string(), message: z.string() }),
  }),
]);
export type ChatEvent = z.infer<typeof ChatEventSchema>;

/** `POST /v1/tools/{name}/invoke`. */
export const InvokeRequestSchema = z.strictObject({ input: z.unknown() });

/**
 * `POST /v1/confirmations/{id}`. `stop_turn` (with `approve: false` only) also stops the
 * planner turn that waits for the call: no round is asked of the model after it, and every
 * other call of that turn still waiting is rejected too (ADR 0068).
 */
export const ConfirmRequestSchema = z
  .strictObject({ approve: z.boolean(), stop_turn: z.boolean().optional() })
  .superRefine((req, ctx) => {
    if (req.approve && req.stop_turn === true) {
      ctx.addIssue({
        code: 'custom',
        path: ['stop_turn'],
        message: 'only with "approve": false: a turn is stopped by rejecting its call',
      });
    }
  });

/**
 * The answer to a confirmation: the decision, the call's report and, when a planner turn of
 * the same caller waited for it, the rest of that turn (`chat`): the model read the result
 * and went on. The rest of another token's turn is never here: it goes to that turn's
 * conversation (ADR 0063).
 */
export const ConfirmResponseSchema = ToolCallReportSchema.extend({
  /** What the human decided (the call's own outcome is `outcome`). Absent before ADR 0063. */
  decision: z.enum(['approved', 'rejected']).optional(),
  chat: ChatResponseSchema.optional(),
  /**
   * With `stop_turn`: whether a planner turn waited for the call and was stopped (false: the
   * call had no turn, such as an API invoke's, and this was a plain rejection). ADR 0068.
   */
  stopped: z.boolean().optional(),
  /** With `stop_turn`: the other calls of the stopped turn that still waited, now rejected. */
  also_rejected: z
    .array(z.object({ id: z.string(), tool: z.string(), decision_id: z.string() }))
    .optional(),
});
export type ConfirmResponse = z.infer<typeof ConfirmResponseSchema>;

/** One call waiting for a human (`GET /v1/confirmations`), oldest first. */
export const PendingConfirmationSchema = z.object({
  /** The id `POST /v1/confirmations/{id}` takes. */
  id: z.string(),
  tool: z.string(),
  /** Plain language: exactly what would run. */
  summary: z.string(),
  /** The token name (or `cli`, `trigger:<name>`) that asked for the call. */
  requested_by: z.string(),
  /** The principal of that token (ADR 0096); absent from a brain before issue 32. */
  principal: z.string().optional(),
  session_id: z.string().optional(),
  decision_id: z.string(),
  /** The policy rule that asked for confirmation. */
  rule: z.string(),
  /** Where that rule sits, `<file>:<line>:<col>`, in the policy that decided. */
  rule_at: z.string().optional(),
  reason: z.string(),
  ...HeldCallAccount,
  /** ISO-8601 UTC. */
  created_at: z.string(),
  /** ISO-8601 UTC. */
  expires_at: z.string(),
});
export type PendingConfirmation = z.infer<typeof PendingConfirmationSchema>;

/**
 * A model's call to simulate (docs/policy.md, "Flow rules"): what its turn had read. The
 * tool's effects come from its live spec. `shares_private_words` matters only under
 * `flow.private_match: shared_words`; by default the input is taken to share words.
 */
export const ExplainFlowSchema = z.strictObject({
  after_untrusted: z.boolean().default(false),
  after_private: z.boolean().default(false),
  shares_private_words: z.boolean().default(true),
});
export type ExplainFlow = z.infer<typeof ExplainFlowSchema>;

/**
 * `POST /v1/policy/explain`: the call to judge, as `{tool, input}`, and `flow` to judge it
 * as a model's call.
 */
export const ExplainRequestSchema = z.strictObject({
  tool: z.string().min(1),
  input: z.unknown(),
  flow: ExplainFlowSchema.optional(),
  /**
   * Decide as this principal would be judged (ADR 0096): its groups are the tokens file's for
   * it, plus `groups`. Absent: as the asking token's own principal. A what-if only: no call
   * is ever made as the principal an explanation names.
   */
  principal: z.string().regex(PRINCIPAL_NAME_RE, PRINCIPAL_NAME_RULE).optional(),
  /** Further groups to judge `principal` in (a group the tokens file does not give it yet). */
  groups: z
    .array(z.string().regex(PRINCIPAL_NAME_RE, PRINCIPAL_NAME_RULE))
    .max(MAX_GROUPS)
    .optional(),
});

/** What the policy says about a tool with no particular input. */
const ToolPolicyViewSchema = z.object({
  outcome: z.enum(['allow', 'deny', 'confirm', 'rate_limited']),
  rule: z.string(),
  reason: z.string(),
});

export const ToolViewSchema = z.object({
  name: z.string(),
  /**
   * `served`: a worker announced it (its spec, its instances); `planned`: only the catalog
   * lists it (a stub, ADR 0090): no spec (`null`), no instances, never offered to a model,
   * and a call is refused `tool_planned`.
   */
  state: z.enum(['served', 'planned']),
  /** A planned tool's purpose and tags, as the catalog lists them; absent when served. */
  planned: z.object({ purpose: z.string(), tags: z.array(z.string()) }).optional(),
  spec: z.unknown(),
  instances: z.array(
    z
      .object({
        id: z.string(),
        host: z.string(),
        version: z.string(),
        /**
         * The instance's restarts under `caesar up` (ADR 0070), as it declared them;
         * absent on a first start or when the worker declared none that parsed.
         */
        restarts: WorkerRestartsSchema.optional(),
        /**
         * What the instance's host has, as it declared it (ADR 0091): `vcpus`, `memory_gb`,
         * `gpus` found (`[{kind, count}]`, `[]`: none found); absent for a worker before it.
         */
        capacity: HostCapacitySchema.optional(),
      })
      .loose(),
  ),
  preflight: z.object({
    ok: z.boolean().nullable(),
    /**
     * `ready`; `not_configured` (the tool's backend is not set up: `detail` names the key to
     * set); `not_ready` (configured, but a check failed: DNS, connect, TLS, auth, not found);
     * `unknown` (no preflight answer).
     */
    state: z.enum(['ready', 'not_configured', 'not_ready', 'unknown']),
    /** One line per failing check or warning; `error: …` when the preflight itself failed. */
    detail: z.array(z.string()),
    checked_at: z.string().nullable(),
  }),
  policy: ToolPolicyViewSchema,
});
export type ToolView = z.infer<typeof ToolViewSchema>;

/** Longest line of `GET /v1/capabilities`, and most entries of each list. */
const CAPABILITY_TEXT_MAX = 2000;
const CAPABILITY_LIST_MAX = 256;

/** A thing the brain can answer offline: `do arithmetic and unit conversions`. */
const CapabilitySchema = z.object({
  what: z.string().max(CAPABILITY_TEXT_MAX),
  /** `what is 17 * 23`. */
  example: z.string().max(CAPABILITY_TEXT_MAX).optional(),
});

/**
 * `GET /v1/capabilities`: what the local rules (and, with no model, the brain's own answers)
 * can do now, what could work and every step it needs, and whether a model answers the rest.
 * The setup details `caesar chat`'s `/help setup` prints; chat replies only point at them.
 */
export const CapabilitiesViewSchema = z.object({
  model: z.object({
    /** Whether `llm.provider` and `llm.model` are set: a model answers what no rule does. */
    configured: z.boolean(),
    /** The steps that add one (empty when configured). */
    steps: z.array(z.string().max(CAPABILITY_TEXT_MAX)).max(CAPABILITY_LIST_MAX),
  }),
  ready: z.array(CapabilitySchema).max(CAPABILITY_LIST_MAX),
  missing: z
    .array(
      CapabilitySchema.extend({
        /** The first step in a few words: `start the web_search tool`. */
        step: z.string().max(CAPABILITY_TEXT_MAX),
        /** Every step, with its command, policy file, setting and env var. */
        steps: z.array(z.string().max(CAPABILITY_TEXT_MAX)).max(CAPABILITY_LIST_MAX),
      }),
    )
    .max(CAPABILITY_LIST_MAX),
  /** Tools the catalog lists as planned and no worker serves (ADR 0090); never callable. */
  planned: z
    .array(z.object({ tool: z.string(), purpose: z.string().max(CAPABILITY_TEXT_MAX) }))
    .max(CAPABILITY_LIST_MAX)
    .optional(),
});
export type CapabilitiesView = z.infer<typeof CapabilitiesViewSchema>;

/**
 * One readiness check. `warning` is set when the part works but needs attention (the policy
 * file on disk is broken while the last good policy is enforced): it does not make the brain
 * not ready.
 */
const ReadinessCheckSchema = z.object({
  ok: z.boolean(),
  detail: z.string().optional(),
  warning: z.string().optional(),
});

/** `GET /readyz`. */
export const ReadinessSchema = z.object({
  ready: z.boolean(),
  checks: z.object({
    nats: ReadinessCheckSchema,
    audit: ReadinessCheckSchema,
    policy: ReadinessCheckSchema,
    /**
     * The model the brain asks, and its endpoint's start-up check as a warning when it found
     * a problem. Never makes the brain unready: the local rules answer without a model.
     */
    llm: ReadinessCheckSchema.optional(),
  }),
});
export type Readiness = z.infer<typeof ReadinessSchema>;

/**
 * `GET /v1/whoami`: the name of the token that asked (the `actor` of its audit rows), so a
 * client can say who is logged in. Never the token itself.
 */
export const WhoamiSchema = z.strictObject({ name: z.string() });
export type Whoami = z.infer<typeof WhoamiSchema>;

/** Error body of every non-2xx HTTP answer. */
export const HttpErrorSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    /** `[{path, message}]` for request validation errors. */
    details: z.unknown().optional(),
  }),
  request_id: z.string(),
});
export type HttpError = z.infer<typeof HttpErrorSchema>;

/** `GET /v1/policy`: the enforced policy, the file on disk, and the last refused reload. */
export const PolicyStatusSchema = z.object({
  /** ok: disk == enforced; stale: disk differs but loads (not reloaded yet); broken: disk fails to load. */
  status: z.enum(['ok', 'stale', 'broken']),
  enforced: z.object({
    path: z.string(),
    sha256: z.string(),
    loaded_at: z.string(),
    rules: z.int().nonnegative(),
  }),
  disk: z.object({
    /** Null when the file is missing or unreadable. */
    sha256: z.string().nullable(),
    matches_enforced: z.boolean(),
  }),
  last_reload_error: z
    .object({
      at: z.string(),
      /** A catalogue code (docs/errors.md): policy_invalid, policy_unreadable, ... */
      code: z.string(),
      message: z.string(),
      file: z.string(),
      line: z.int().positive().nullable(),
      col: z.int().positive().nullable(),
    })
    .nullable(),
  /**
   * Warnings about the enforced policy: a rule that never applies, a tool no worker serves
   * and no catalog lists (with the closest known name). They do not stop it loading.
   */
  warnings: z
    .array(
      z.object({
        /** Where in the document: `allowed_tools[3].tool`. */
        path: z.string(),
        line: z.int().positive(),
        column: z.int().positive(),
        message: z.string(),
      }),
    )
    .optional(),
});
export type PolicyStatusView = z.infer<typeof PolicyStatusSchema>;
