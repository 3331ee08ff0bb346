/**
 * Every error code CAESAR has, once: who sees it, its HTTP-like status, whether retrying the
 * same thing may succeed, the message template, and for the docs what it means and what to
 * do. docs/errors.md is generated from this table (`npm run docs:errors`), so the page
 * cannot drift from the code. In the style of fastify's `lib/errors.js`.
 *
 * - `kind` says where the code can appear: `worker` and `brain` codes travel on the wire (a
 *   reply envelope's `error.code`, a ToolCallReport's `error.code`; the ADR-32
 *   `Nats-Service-Error-Code` header carries `status`); `http` codes answer an API request
 *   the HTTP layer refused; `local` codes stop a process or a CLI command and never travel.
 * - `status` is the HTTP status an API answer uses for the code. A `local` code the HTTP
 *   layer meets is answered with its status but with `summary` for a message: the message
 *   of a 5xx names files and causes that are the operator's business, not the caller's.
 * - `message` is the template: `{name}` placeholders, filled by `errorMessage(code, params)`
 *   or `CaesarError.of(code, params)`. Every template is a sentence with named values; words that
 *   are genuinely another party's (a tool author's, a backend's) fill one `{reason}` in it.
 */
export const ERROR_CATALOGUE = {
  // ── worker side: in reply envelopes ─────────────────────────────────────────────────────
  invalid_input: {
    kind: 'worker',
    status: 400,
    retryable: false,
    message: 'invalid input for {tool}: {issues}',
    summary:
      "the envelope or the input failed the tool's schema; `details` lists `{path, message}` per field",
    fix: 'fix the arguments; the LLM gets the field paths',
  },
  not_configured: {
    kind: 'worker',
    status: 503,
    retryable: false,
    message: 'not configured: {reason}',
    summary: "the tool's backend is not configured (URL, credentials)",
    fix: 'set the config key the message names',
  },
  backend_error: {
    name: 'BackendError',
    kind: 'worker',
    status: 502,
    retryable: true,
    message: 'the backend failed: {reason}',
    summary: 'the backend the tool calls failed (HTTP 5xx, connection refused)',
    fix: 'retry later; check the backend',
  },
  upstream_empty: {
    kind: 'worker',
    status: 502,
    retryable: true,
    message: 'the backend could not do the work: {reason}',
    summary:
      'the backend answered but could not do the work (a search whose engines are all down): its empty answer says nothing about the world',
    fix: 'fallback tries the next backend; the message names the backend and why',
  },
  timeout: {
    kind: 'worker',
    status: 504,
    retryable: true,
    message: 'timed out: {reason}',
    summary: 'the handler ran past its deadline (or was cut off at shutdown)',
    fix: 'retry with a longer deadline, or simplify the request',
  },
  mcp_tool_error: {
    name: 'McpToolError',
    kind: 'worker',
    status: 502,
    retryable: false,
    message: '{tool} answered with an error: {reason}',
    summary:
      'the MCP server behind the tool (`caesar legion serve-mcp`) ran the tool and answered `isError: true`; the reason is its own words, outside content',
    fix: 'read the reason (a missing file, a refused path, bad arguments the schema let through); the call is not retried',
  },
  mcp_server_unavailable: {
    kind: 'worker',
    status: 503,
    retryable: true,
    message: 'the MCP server behind {tool} is not running: {reason}',
    summary:
      'the MCP server behind the tool exited (or its connection closed) before or during the call; `serve-mcp` starts it again with backoff',
    fix: "retry in a moment; if it keeps failing, read the worker log (the server's own stderr is in it, escaped)",
  },
  overloaded: {
    kind: 'worker',
    status: 429,
    retryable: true,
    message: '{tool} is at its concurrency cap ({running} running) and its queue is full',
    summary: "the instance's concurrency cap and queue are full",
    fix: 'retry after a moment; add replicas',
  },
  grant_rejected: {
    kind: 'worker',
    status: 403,
    retryable: false,
    message: 'refused without a valid grant from a trusted brain: {reason}',
    summary:
      'the call carried no grant a trusted brain signed for exactly this tool, input, decision and deadline, or the grant was expired or replayed',
    fix: "a call not sent by the brain is refused as it should be; for the brain's own calls, give the worker the brain's public key (`--trusted-brain`, `worker.trusted_brains`) and the brain an NKEY identity (docs/security.md)",
  },
  grant_unaddressed: {
    kind: 'worker',
    status: 421,
    retryable: true,
    message: 'the grant names no MAC for this instance: {reason}',
    summary:
      'a v2 grant (ADR 0108) reached an instance the brain had not listed yet; the instance ran nothing',
    fix: 'nothing: the brain sends the same call again with a signed (v1) grant, which any instance checks',
  },
  result_too_large: {
    kind: 'worker',
    status: 502,
    retryable: false,
    message:
      "{tool}'s reply is {bytes} bytes encoded, over the {limit} bytes {limitedBy} takes; the result is dropped: ask for less (fewer items, a narrower query)",
    summary:
      "the tool's reply was larger than the NATS server's `max_payload` or the 1 MiB envelope the brain accepts: answered at once in its place",
    fix: 'ask for less; a tool author returns fewer or shorter items; an operator may raise `max_payload` (the 1 MiB envelope stays)',
  },
  sandbox_unavailable: {
    name: 'SandboxUnavailableError',
    kind: 'worker',
    status: 503,
    retryable: false,
    message: 'the sandbox cannot run {program}: {reason}',
    summary:
      "a command tool's sandbox could not start: bubblewrap or the program is missing, or the host refuses new namespaces (ADR 0097)",
    fix: 'install what the message names (`apt-get install bubblewrap`, the package of the program) or allow unprivileged user namespaces; the preflight says the same',
  },
  sandbox_time_limit: {
    name: 'SandboxTimeLimitError',
    kind: 'worker',
    status: 504,
    retryable: true,
    message:
      '{program} ran past its time limit of {limitMs} ms and was killed with everything it started',
    summary: "a command tool's program ran longer than its `timeoutMs` limit (wall clock)",
    fix: 'retry (a slow network may be the cause), or ask for less; a tool author may raise `limits.timeoutMs`',
  },
  sandbox_cpu_limit: {
    name: 'SandboxCpuLimitError',
    kind: 'worker',
    status: 422,
    retryable: false,
    message: '{program} used its CPU limit of {limitSeconds} s and was killed by the kernel',
    summary: "a command tool's program used more CPU time than `limits.cpuSeconds` (RLIMIT_CPU)",
    fix: 'ask for less work; a tool author may raise `limits.cpuSeconds`',
  },
  sandbox_memory_limit: {
    name: 'SandboxMemoryLimitError',
    kind: 'worker',
    status: 422,
    retryable: false,
    message: '{program} reached its memory limit of {limitMb} MB and was killed',
    summary:
      "a command tool's program needed more memory than `limits.memoryMb` (a cgroup's OOM kill; ADR 0097 says when it is seen)",
    fix: 'ask for less work; a tool author may raise `limits.memoryMb`',
  },
  sandbox_output_limit: {
    name: 'SandboxOutputLimitError',
    kind: 'worker',
    status: 502,
    retryable: false,
    message:
      '{program} printed more than its output limit of {limitBytes} bytes on {stream} and was killed',
    summary: "a command tool's program printed more than `limits.outputBytes` on stdout or stderr",
    fix: 'ask for less; a tool author may raise `limits.outputBytes`',
  },
  job_cancelled: {
    kind: 'worker',
    status: 409,
    retryable: false,
    message: 'job {job} was cancelled by {by}',
    summary:
      'a job (ADR 0098) ended because an operator cancelled it: its AbortSignal fired while it ran, or it was taken off the queue before a worker started it',
    fix: 'nothing to do; submit the call again to run it',
  },
  internal: {
    kind: 'worker',
    status: 500,
    retryable: false,
    message: 'internal error: {reason}',
    summary:
      'a bug: the handler threw an uncoded error or broke its output schema; over HTTP, a bug in the brain',
    fix: 'read the log (it has the stack, under the request id for HTTP)',
  },

  // ── brain side: produced by the dispatcher and the gateway ─────────────────────────────
  worker_lost: {
    kind: 'brain',
    status: 503,
    retryable: true,
    message:
      'the worker running job {job} stopped sending heartbeats {lapse} ago; {tool} runs at most once, so the job failed instead of running again',
    summary:
      'a job of an `at_most_once` tool whose worker died (or lost its connection) while it ran: the brain saw its heartbeat lapse (ADR 0098)',
    fix: 'submit the call again once a worker runs; a tool that is safe to repeat declares `job: { delivery: at_least_once }` and is redelivered instead',
  },
  job_attempts_exhausted: {
    kind: 'brain',
    status: 503,
    retryable: false,
    message:
      'job {job} of {tool} lost its worker {attempts} times (each stopped sending heartbeats while it ran); it is not run again',
    summary:
      'an `at_least_once` job every worker died on (ADR 0098): after its third lost worker the brain takes it off the queue rather than redeliver it for ever',
    fix: "read the workers' logs for why they died on it (memory, a crash in the handler), then submit the call again",
  },
  job_limit_reached: {
    kind: 'brain',
    status: 429,
    retryable: true,
    message: 'the job of {tool} was not submitted: {limit}',
    summary:
      'a call that runs as a job passed an operator limit on jobs (`tools.limits`: `max_wall_clock`, `max_concurrent_jobs_per_tool`, `max_concurrent_jobs`) and was refused before it was recorded as called (ADR 0098)',
    fix: 'wait for running jobs to end (`caesar jobs list`), or raise the limit in caesar.yaml',
  },
  no_worker: {
    kind: 'brain',
    status: 503,
    retryable: true,
    message: 'no live instance of {tool}: {start}',
    summary: 'no instance of the tool is connected (NATS no-responders: answered at once)',
    fix: 'start its worker: the message names the command for this stack',
  },
  tool_planned: {
    kind: 'brain',
    status: 404,
    retryable: false,
    message:
      '{tool} is planned, not served: the catalog lists it without a module ({file}); nothing runs it yet',
    summary:
      'the tool is a catalog-only stub (`caesar catalog add --planned`): it is listed as planned and never dispatched, and the call was refused before the policy judged it',
    fix: 'write the tool and replace the stub: `caesar catalog remove <tool>`, then `caesar catalog add <its module>`',
  },
  bus_unavailable: {
    kind: 'brain',
    status: 503,
    retryable: true,
    message:
      'the message bus (NATS) is down ({why}), so the call to {tool} was not sent; the brain reconnects by itself: try again in a moment',
    summary:
      'the brain is not connected to NATS (server down, reconnecting): answered at once, nothing is dispatched',
    fix: 'retry; `caesar up` restarts nats-server; `GET /readyz` shows it',
  },
  dispatch_timeout: {
    kind: 'brain',
    status: 504,
    retryable: true,
    message: '{tool} did not reply in time: {reason}',
    summary: 'no reply arrived by the deadline (worker died mid-call, network partition)',
    fix: 'retry; check `caesar legion list`',
  },
  outcome_unknown: {
    kind: 'brain',
    status: 504,
    retryable: false,
    message:
      'the call to {tool} may or may not have run: {reason}; check whether it took effect before you try again',
    summary:
      'the bus lost the call or its reply (a nats-server died mid-call), and the instance it went to could not say what became of it, for a tool that is not idempotent: the brain neither re-ran it nor claims it failed (ADR 0099)',
    fix: 'check the effect (the device, the calendar) before retrying; the audit row says which instance was asked',
  },
  bad_reply: {
    kind: 'brain',
    status: 502,
    retryable: false,
    message: 'the reply from {tool} cannot be used: {reason}',
    summary:
      'the reply broke the envelope or output schema, or replies came but none was bound to the call (ADR 0060)',
    fix: "protocol version or bug; refused replies: see the brain's warn line",
  },
  denied: {
    kind: 'brain',
    status: 403,
    retryable: false,
    message: 'denied by the policy: {reason}',
    summary: 'the policy denied the call; the reason names the rule or the file to edit',
    fix: 'edit `policy.yaml`',
  },
  confirmation_required: {
    kind: 'brain',
    status: 409,
    retryable: false,
    message: 'a human must confirm this call first: {reason}',
    summary: 'a human must approve the call first',
    fix: 'approve or reject it',
  },
  rate_limited: {
    kind: 'brain',
    status: 429,
    retryable: true,
    message: 'over the policy rate limit: {reason}',
    summary: 'the matching policy rule is over its rate limit',
    fix: 'wait',
  },
  unknown_tool: {
    kind: 'brain',
    status: 400,
    retryable: false,
    message:
      'no tool named "{name}" is offered to you, so it was not called; the tools you may call are: {offered}',
    summary:
      'a model named a tool it was not offered: refused before the policy, the metrics or the audit row saw the name (ADR 0065)',
    fix: 'nothing to do: the model is told which tools it may call',
  },
  too_many_calls: {
    kind: 'brain',
    status: 429,
    retryable: false,
    message:
      'not run: at most {cap} calls run per {per} ({setting}){more}; ask again for what is still needed',
    summary:
      'a model asked for more calls than one planning round or one turn may run (`llm.max_calls_per_round`, `llm.max_calls_per_turn`)',
    fix: 'the model is told which calls did not run; raise the caps only if the tools can take it',
  },
  audit_unavailable: {
    kind: 'brain',
    status: 503,
    retryable: true,
    message: 'the audit log cannot be written, so nothing is dispatched: {what}',
    summary:
      'the audit log cannot be written (disk full, read-only), so nothing is dispatched: the brain fails closed',
    fix: 'free space / fix permissions on the audit file; `GET /readyz` shows it',
  },
  job_not_found: {
    kind: 'brain',
    status: 404,
    retryable: false,
    message: 'no job {id}',
    summary: 'no job has this id in the audit log (ADR 0098)',
    fix: '`caesar jobs list` shows the jobs; an id is the decision id the submission answered',
  },
  confirmation_not_found: {
    kind: 'brain',
    status: 404,
    retryable: false,
    message:
      'no pending confirmation {id}: unknown, already used, expired, or voided by a policy reload',
    summary:
      'no pending confirmation has this id: unknown, already used, expired, or voided by a policy reload',
    fix: 'ask again; approve within `brain.confirmation_ttl`',
  },
  approver_required: {
    kind: 'brain',
    status: 403,
    retryable: false,
    message:
      'confirmation {id} may be decided only by {approvers} (rule {rule}); {caller} is not: ask one of them',
    summary:
      "the held call's rule names `approvers:` and the deciding token's principal is not among them (ADR 0096)",
    fix: "decide it with a token whose principal or group the rule's `approvers:` lists",
  },
  session_not_found: {
    kind: 'brain',
    status: 404,
    retryable: false,
    message: 'session {id} not found',
    summary:
      "no conversation with this `session_id` belongs to the caller's token (unknown, expired, or someone else's)",
    fix: 'omit `session_id` to start a new conversation',
  },

  // ── HTTP API: the request itself ────────────────────────────────────────────────────────
  invalid_request: {
    name: 'HttpApiError',
    kind: 'http',
    status: 400,
    retryable: false,
    message: 'invalid request: {issues}',
    summary:
      'invalid body, path or query (`details` per field); bad JSON, too deep, or `__proto__`',
    fix: 'fix the field the details name',
  },
  unauthorized: {
    name: 'HttpApiError',
    kind: 'http',
    status: 401,
    retryable: false,
    message: 'the bearer token is {problem}',
    summary: 'missing or unknown bearer token',
    fix: 'send `Authorization: Bearer <token>` from the tokens file',
  },
  forbidden: {
    name: 'HttpApiError',
    kind: 'http',
    status: 403,
    retryable: false,
    message: "token '{token}' lacks the '{scope}' scope this route needs (it has: {has})",
    summary: "the token lacks the route's scope",
    fix: "add the scope to the token's `scopes`, or use another token",
  },
  not_found: {
    name: 'HttpApiError',
    kind: 'http',
    status: 404,
    retryable: false,
    message: 'no {what}',
    summary: 'no such route (or wrong method)',
    fix: 'check the path and method against docs/api.md',
  },
  request_timeout: {
    name: 'HttpApiError',
    kind: 'http',
    status: 408,
    retryable: true,
    message: 'the request (headers and body) did not arrive within {within}',
    summary: 'the headers and body did not arrive within 30 s; the connection is closed',
    fix: 'send the whole request at once; check the proxy',
  },
  body_too_large: {
    name: 'HttpApiError',
    kind: 'http',
    status: 413,
    retryable: false,
    message: 'request body is larger than {limit} bytes',
    summary: 'the body is larger than `api.body_limit`',
    fix: 'send less, or raise `api.body_limit`',
  },
  unsupported_media_type: {
    name: 'HttpApiError',
    kind: 'http',
    status: 415,
    retryable: false,
    message: 'request body must be JSON (Content-Type: application/json)',
    summary: 'a `POST` body that is not JSON',
    fix: 'send `Content-Type: application/json`',
  },
  too_many_requests: {
    name: 'HttpApiError',
    kind: 'http',
    status: 429,
    retryable: true,
    message: 'too many requests: {why}; {next}',
    summary: 'this token is over `api.rate_limit`',
    fix: 'wait for `Retry-After`',
  },
  headers_too_large: {
    name: 'HttpApiError',
    kind: 'http',
    status: 431,
    retryable: false,
    message: 'request headers are larger than {limit} bytes',
    summary: 'the request headers are larger than 16 KiB; the connection is closed',
    fix: 'send fewer or shorter headers (cookies)',
  },

  // ── policy (src/policy): stop the brain at start; a reload keeps the last good policy ───
  policy_invalid: {
    name: 'PolicyLoadError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: '{file}: invalid policy ({count}){problems}',
    summary:
      'the policy file does not parse or does not follow the grammar; `issues` lists every problem with line, column and path',
    fix: 'fix the file; `caesar policy check` prints each problem as file:line:column',
  },
  policy_unreadable: {
    name: 'PolicyReadError',
    kind: 'local',
    status: 500,
    retryable: true,
    message: 'cannot read policy file {file}: {reason}',
    summary: 'the policy file is missing, unreadable or not UTF-8',
    fix: 'check the path (`policy.file`) and permissions',
  },
  policy_too_large: {
    kind: 'local',
    status: 500,
    retryable: false,
    message:
      'policy file {file} is {size} bytes, over the limit of {limit} bytes: split long lists with globs, or raise policy.max_file_bytes in caesar.yaml (CAESAR_POLICY__MAX_FILE_BYTES)',
    summary:
      'the policy file is larger than `policy.max_file_bytes` (512 KiB by default); refused before it is read',
    fix: 'split long lists with globs, or raise `policy.max_file_bytes`',
  },
  policy_not_configured: {
    kind: 'local',
    status: 500,
    retryable: false,
    message:
      'no policy file is configured: set policy.file in caesar.yaml (or CAESAR_POLICY__FILE)',
    summary: 'a reload was asked of a store that has no policy file; every call is denied',
    fix: 'set `policy.file` in caesar.yaml (or `CAESAR_POLICY__FILE`)',
  },
  policy_cases_invalid: {
    name: 'PolicyCasesError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: '{file}: invalid policy cases file ({count}){problems}',
    summary: 'a `caesar policy test` cases file does not parse or does not follow its schema',
    fix: 'fix the cases file',
  },
  policy_closed: {
    kind: 'local',
    status: 500,
    retryable: false,
    message: 'policy store for {file} is closed',
    summary: '`reload()` on a store that was closed',
    fix: 'open a new store',
  },

  // ── audit log (src/audit) ───────────────────────────────────────────────────────────────
  audit_write_failed: {
    name: 'AuditWriteError',
    kind: 'local',
    status: 503,
    retryable: false,
    message: 'audit log write failed: {reason}',
    summary:
      'a batch could not be made durable (`sqliteCode` says why; `SQLITE_BUSY` is retryable)',
    fix: 'free space / fix permissions on the audit file',
  },
  audit_closed: {
    kind: 'local',
    status: 500,
    retryable: false,
    message: 'audit log {path} is closed',
    summary: '`append` after `close()`',
    fix: 'a bug in the caller: open the log again',
  },
  audit_open_failed: {
    name: 'AuditOpenError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: 'cannot open audit log {path}: {reason}',
    summary: 'the file cannot be opened, migrated or read at open (corrupt, not SQLite)',
    fix: 'check the file and its directory; `caesar audit verify`',
  },
  audit_not_found: {
    kind: 'local',
    status: 500,
    retryable: false,
    message: 'no audit log at {path}',
    summary: 'a reader was given a missing file',
    fix: 'check `audit.file` or `--audit-db`',
  },
  audit_schema_unsupported: {
    name: 'AuditSchemaError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: '{path} {problem}',
    summary: 'the file has a newer schema, or is not an audit log',
    fix: 'upgrade CAESAR, or point `audit.file` elsewhere',
  },
  audit_locked: {
    kind: 'local',
    status: 503,
    retryable: true,
    message: 'audit log is in use by {holder} (lock file {lockPath}); stop that process first',
    summary: 'another live process holds the writer lock (`pid`, `host`)',
    fix: 'stop that process first',
  },
  audit_invalid_event: {
    name: 'AuditEventError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: 'invalid audit event {type}: {reason}',
    summary: 'the event does not match the catalogue',
    fix: 'a bug in the caller',
  },
  audit_integrity_failed: {
    name: 'AuditIntegrityError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: '{path}: {reason}',
    summary: '`integrity_check` or the chain failed where it must pass (restore)',
    fix: 'restore from a backup that verifies',
  },
  audit_backup_failed: {
    name: 'AuditBackupError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: 'backup to {to} failed: {reason}',
    summary: 'backup refused (destination exists) or failed',
    fix: 'pick another destination; check space',
  },
  audit_restore_failed: {
    name: 'AuditRestoreError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: 'restore of {from} to {to} failed: {reason}',
    summary: 'restore failed before the live file was replaced',
    fix: 'the live file is untouched; fix the cause the message names',
  },

  // ── the brain's other files and parts ──────────────────────────────────────────────────
  config_invalid: {
    name: 'ConfigError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: 'invalid configuration ({count}){problems}',
    summary:
      'the configuration could not be loaded; every problem names its source (file:line:col or env var) and key',
    fix: 'fix the key the message names (`caesar config show` prints the merged settings)',
  },
  config_file_missing: {
    kind: 'local',
    status: 500,
    retryable: false,
    message: '{key} names {file}, which does not exist: {next}',
    summary:
      'a policy or intents file given by flag, env var or caesar.yaml does not exist; only the default place in the data dir is filled from the shipped copy',
    fix: 'create the file (the message names the shipped one to copy), or drop the setting to use `<data_dir>/policy.yaml` / `<data_dir>/intents.yaml`',
  },
  intents_invalid: {
    name: 'IntentsError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: '{file}: invalid intents file ({count}){problems}',
    summary:
      '`config/intents.yaml` breaks the grammar; every problem as file:line:col and key path',
    fix: 'fix the rule the message names (docs/intents.md)',
  },
  intents_unreadable: {
    name: 'IntentsError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: 'cannot read intents file {file}: {reason}',
    summary: 'the intents file is missing, too large or not UTF-8',
    fix: 'check `brain.intents_file`',
  },
  intents_bad_context: {
    name: 'IntentsError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: 'match() needs ctx.{field}, {expected}',
    summary: '`match` was given an invalid `now` or an unknown time zone (a bug in the caller)',
    fix: 'pass a valid `Date` and an IANA zone such as `Europe/Berlin`',
  },
  tokens_file_invalid: {
    name: 'TokensFileError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: '{file}: invalid API tokens file ({count}){problems}',
    summary:
      'the API tokens file is not `tokens: [{name, token}]`, has duplicate names or short tokens',
    fix: 'fix the entry the message names',
  },
  tokens_file_insecure: {
    name: 'TokensFileError',
    kind: 'local',
    status: 500,
    retryable: false,
    message:
      'API tokens file {file} is accessible by group or others (mode {mode}): run chmod 600 {file}',
    summary: 'the tokens file is readable by group or others',
    fix: '`chmod 600 <file>`',
  },
  tokens_file_unreadable: {
    name: 'TokensFileError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: 'API tokens file {file}: {reason}',
    summary: 'the tokens file cannot be read',
    fix: 'check `api.tokens_file` and permissions',
  },
  api_port_taken: {
    name: 'HttpPortTakenError',
    kind: 'local',
    status: 500,
    retryable: false,
    message:
      'port {port} on {host} is taken (another caesar brain or caesar up, or another server): stop it, or pick another port with --api-port (0 = any free port; CAESAR_API__PORT, api.port)',
    summary: "the HTTP API's port is in use",
    fix: 'stop what holds it, or `--api-port 0`',
  },
  api_bind_refused: {
    name: 'HttpBindError',
    kind: 'local',
    status: 500,
    retryable: false,
    message:
      'refusing to listen on non-loopback address {host} with no API tokens: add a token to the tokens file (api.tokens_file) or bind to 127.0.0.1',
    summary: 'a non-loopback `api.host` with no API token',
    fix: 'add a token, or bind 127.0.0.1',
  },
  conversations_open_failed: {
    name: 'ConversationStoreError',
    kind: 'local',
    status: 503,
    retryable: false,
    message: 'cannot {action} conversations database {path}: {reason}',
    summary:
      'the conversations file cannot be opened, or is another SQLite file (an audit log, say)',
    fix: 'check `brain.conversations_file`',
  },
  conversations_schema_unsupported: {
    name: 'ConversationStoreError',
    kind: 'local',
    status: 503,
    retryable: false,
    message: '{path} {problem}; {next}',
    summary: 'the conversations file was written by a newer CAESAR',
    fix: 'upgrade, or point `brain.conversations_file` elsewhere',
  },
  conversations_failed: {
    name: 'ConversationStoreError',
    kind: 'local',
    status: 503,
    retryable: false,
    message: 'conversation store {path}: {what} {outcome}: {reason}',
    summary:
      'a read or write of the conversations file failed (not writable, disk full; `SQLITE_BUSY` is retryable)',
    fix: 'check disk space and the file; `GET /readyz`',
  },
  conversations_closed: {
    name: 'ConversationStoreError',
    kind: 'local',
    status: 503,
    retryable: false,
    message: 'conversation store {path} is closed',
    summary: 'the conversation store was used after `close()` (the brain is stopping)',
    fix: 'retry once the brain is up again',
  },
  planner_unavailable: {
    kind: 'local',
    status: 503,
    retryable: true,
    message: 'no model could be reached: {tried}',
    summary:
      'no configured model answered a round (the primary and every fallback failed after retries); the reply says what was tried',
    fix: 'check `llm.*` and the model servers; `caesar_llm_requests_total` has the outcomes',
  },
  llm_request_failed: {
    name: 'LlmError',
    kind: 'local',
    status: 502,
    retryable: false,
    message: '{provider}: {problem}',
    summary:
      'one request to a model failed; `kind` says how (rate_limited, server, timeout, connect, auth, bad_request, …) and whether it is retried',
    fix: 'see docs/llm.md, "Retries and failover"',
  },
  registry_closed: {
    kind: 'local',
    status: 500,
    retryable: false,
    message: 'the registry is closed',
    summary: '`start()` or `sweep()` on a registry that was closed',
    fix: 'a bug in the caller',
  },

  // ── NATS and the worker SDK ────────────────────────────────────────────────────────────
  bus_connect_failed: {
    name: 'BusConnectError',
    kind: 'local',
    status: 503,
    retryable: false,
    message: 'cannot {action} {what}: {reason}',
    summary: 'cannot connect to NATS, or its credentials (seed, creds, token file) are unusable',
    fix: 'check `bus.url` and the credentials file the message names',
  },
  bus_auth_refused: {
    name: 'BusAuthError',
    kind: 'local',
    status: 503,
    retryable: false,
    message: 'NATS at {url} refused this client ({reason})',
    summary:
      'the NATS server refused the identity this process connected with (no identity, or a key it has no user for): "Authorization Violation"',
    fix: 'connect as the operator: `--nkey-seed-file` or `CAESAR_BUS__NKEY_SEED_FILE`; the message names the places looked',
  },
  jetstream_refused: {
    name: 'JetStreamApiError',
    kind: 'local',
    status: 503,
    retryable: true,
    message: 'JetStream refused {subject}: {description} ({code}/{errCode})',
    summary:
      "nats-server's JetStream answered a call of the job queue (ADR 0098) with an error: JetStream off, a stream with another configuration, a message already gone",
    fix: 'run nats-server with JetStream (`-js -sd <dir>`; `caesar up` does) and read the description',
  },
  jetstream_silent: {
    name: 'JetStreamSilent',
    kind: 'local',
    status: 503,
    retryable: true,
    message:
      'JetStream did not answer {subject} within {timeoutMs} ms (is it enabled, and has its cluster a leader?)',
    summary:
      'no JetStream answered a call of the job queue in time: JetStream off on a server that still answers, or a clustered JetStream between leaders (ADR 0101)',
    fix: 'run nats-server with JetStream; in a cluster, wait for the leader election (seconds) or bring back the servers a quorum needs',
  },
  bus_permission_denied: {
    name: 'BusPermissionError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: 'NATS refused {refused}: {why}. {next}',
    summary:
      "NATS refused a subscription this process needs: its identity's permissions do not allow the subject",
    fix: 'give the identity the block `caesar legion permissions <tools>` prints (docs/operations.md, "Workers on other hosts")',
  },
  nats_server_failed: {
    name: 'NatsServerError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: 'nats-server {problem}{output}',
    summary: 'the embedded nats-server did not start (missing binary, port taken, bad config)',
    fix: 'install nats-server, or run with `--nats-port 0`',
  },
  subject_token_invalid: {
    name: 'SubjectTokenError',
    kind: 'local',
    status: 400,
    retryable: false,
    message: 'invalid {what} {value}: must match {pattern}',
    summary: 'a tool name or instance id that cannot be a NATS subject token',
    fix: 'use lowercase letters, digits and `_`',
  },
  tool_definition_invalid: {
    name: 'ToolDefinitionError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: "tool '{tool}' is not a valid definition: {issues}",
    summary: '`defineTool` got a declaration that cannot become a valid ToolSpec',
    fix: 'fix every field the message names',
  },
  tool_config_invalid: {
    name: 'ToolConfigError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: "invalid config for tool '{tool}': {problem}",
    summary: "a tool's config section does not match the tool's schema",
    fix: 'fix the keys the message names (docs/tools/<tool>.md)',
  },
  tool_unknown: {
    name: 'UnknownToolError',
    kind: 'local',
    status: 400,
    retryable: false,
    message: 'unknown tool {names}; shipped tools: {shipped}',
    summary: '`caesar legion serve-tool` was given a tool this build does not ship',
    fix: 'pick one of the shipped tools',
  },
  tool_module_not_found: {
    name: 'ToolModuleError',
    kind: 'local',
    status: 400,
    retryable: false,
    message: 'tool module {module}: {reason}',
    summary:
      '`serve-tool --module` (or `worker.modules`) names a file that does not exist or a package that is not installed',
    fix: 'give a file path starting with ./ or /, or install the package where caesar runs (docs/legion.md)',
  },
  tool_module_no_export: {
    name: 'ToolModuleError',
    kind: 'local',
    status: 400,
    retryable: false,
    message: 'tool module {module} has no default export (it exports: {exports})',
    summary: 'a tool module must default-export its definition (or an array of definitions)',
    fix: 'add `export default { name, … }` (`caesar legion new <name>` writes one)',
  },
  tool_module_invalid: {
    name: 'ToolModuleError',
    kind: 'local',
    status: 400,
    retryable: false,
    message: 'tool module {module}: {reason}',
    summary:
      'a tool module failed to load, or its definition is not valid (the message names each field at fault)',
    fix: 'fix every field the message names; docs/legion.md explains each one',
  },
  tool_module_import_timeout: {
    name: 'ToolModuleError',
    kind: 'local',
    status: 504,
    retryable: false,
    message:
      "tool module {module} did not finish importing within {timeout} ({file}): its top-level code is still waiting (an await that never settles, a connection opened at import). Do that work in the definition's start(ctx) or in its handler, or raise worker.import_timeout (--import-timeout) if the import is only slow",
    summary:
      "a tool module's import (its top-level code) did not finish within `worker.import_timeout`",
    fix: "move waiting work into the definition's `start(ctx)` or its handler; raise `worker.import_timeout` if the import is only slow",
  },
  tool_module_clash: {
    name: 'ToolModuleError',
    kind: 'local',
    status: 400,
    retryable: false,
    message: "tool module {module} defines '{tool}', {clash}",
    summary: 'a tool module uses the name of a shipped tool or of another module',
    fix: 'rename the tool (its `name` field); names are unique across a stack',
  },
  mcp_server_refused: {
    name: 'McpServerError',
    kind: 'local',
    status: 400,
    retryable: false,
    message: 'MCP server {server}: {reason}',
    summary:
      '`caesar legion serve-mcp` cannot serve the MCP server: it did not start or answer `initialize` and `tools/list` in time, or its tools cannot become actions (a name that collides or is too long, too many tools, a schema too large or unusable)',
    fix: 'the message names the tool and the flag to use: `--tools a,b` serves only those, `--start-timeout` waits longer',
  },
  catalog_invalid: {
    name: 'CatalogError',
    kind: 'local',
    status: 500,
    retryable: false,
    message:
      '{file} is not a valid catalog: {issues}. Fix each field named, or drop its entry with `caesar catalog remove <name>` (docs/legion.md, "Catalog")',
    summary:
      '`<data-dir>/catalog.yaml` is not a valid catalog: the message names the line, the entry and the field',
    fix: 'fix the field the message names, or remove the entry with `caesar catalog remove <name>` (docs/legion.md, "Catalog")',
  },
  catalog_drift: {
    name: 'CatalogError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: '{file}: {drift}. {next}',
    summary:
      'a catalog entry no longer matches the spec its module defines (`caesar catalog check`, `caesar up`)',
    fix: 'update the entry from the module: `caesar catalog add <module>` again (it replaces the entry), or put the module back as it was',
  },
  catalog_entry: {
    name: 'CatalogError',
    kind: 'local',
    status: 400,
    retryable: false,
    message: '{file}: {reason}',
    summary: '`caesar catalog add` or `remove` was asked for an entry it cannot add or remove',
    fix: 'the message names the entry and what to do instead',
  },
  tool_name_invalid: {
    kind: 'local',
    status: 400,
    retryable: false,
    message: "invalid tool name '{name}': {rule}; try '{suggestion}'",
    summary: '`caesar legion new` was given a name that is not a valid tool name',
    fix: 'use the suggested name, or another that matches ^[a-z][a-z0-9_]{0,63}$',
  },
  tool_name_taken: {
    kind: 'local',
    status: 400,
    retryable: false,
    message:
      "'{name}' is {why}, and serve-tool refuses a tool of your own under that name; try '{suggestion}'",
    summary: '`caesar legion new` was given the name of a tool CAESAR ships',
    fix: 'use the suggested name, or another that no shipped tool has',
  },
  tool_scaffold_exists: {
    kind: 'local',
    status: 400,
    retryable: false,
    message: '{path} exists: caesar legion new never overwrites; remove it or pass --dir <another>',
    summary: '`caesar legion new` found its target directory or one of its files already there',
    fix: 'pick another directory with --dir, or remove the old one',
  },

  // ── the CLI (src/cli) ───────────────────────────────────────────────────────────────────
  usage: {
    kind: 'local',
    status: 400,
    retryable: false,
    message: '{argument} {problem}',
    summary: 'a command was called with missing or conflicting arguments (exit code 2)',
    fix: '`caesar <command> --help`',
  },
  stack_port_taken: {
    name: 'StackStartError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: 'the {part} port {port} on {host} is taken{holder}; nothing was started. {next}',
    summary: '`caesar up` found its NATS or API port in use before it started anything',
    fix: 'use the running stack, stop it, or start a second one beside it with the `--data-dir`, `--nats-port` and `--api-port` the message names',
  },
  stack_already_running: {
    name: 'StackStartError',
    kind: 'local',
    status: 500,
    retryable: false,
    message:
      'CAESAR is already running with data dir {dataDir} (pid {pid}, API {apiUrl}, NATS {natsUrl}); use it: `caesar chat`, `caesar legion serve-tool --module <dir>` and the dashboard find it through {file}. For a second stack beside it: `{command}`',
    summary: 'a live `caesar up` already runs in this data dir',
    fix: 'use the running stack, or start a second one with the command the message names',
  },
  stack_join_failed: {
    name: 'StackJoinError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: 'cannot join the stack in {dataDir} as {tool}: {reason}',
    summary:
      '`caesar legion serve-tool --module` could not get an identity for its tool from the running stack',
    fix: 'list the module in `worker.modules` and restart `caesar up`, or pass `--nkey-seed-file`',
  },
  runtime_file_invalid: {
    name: 'RuntimeFileError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: '{file}: {reason}',
    summary:
      '`<data-dir>/runtime.json` exists but is unreadable, not JSON, or not a v1 runtime file',
    fix: 'stop the stack and delete the file, or pass `--api-url` and `--token-file`',
  },
  stack_not_found: {
    name: 'ApiTargetError',
    kind: 'local',
    status: 503,
    retryable: true,
    message: '{why} ({tokens})',
    summary: 'no live `runtime.json` in the data dir, and no usable default',
    fix: 'start the stack, or pass `--api-url` and `--token-file`',
  },
  token_not_found: {
    name: 'ApiTargetError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: 'no token named {name} in {file} ({names}){next}',
    summary: 'no token of that name in the tokens file',
    fix: 'pick one with `--token-name`',
  },
  api_url_unknown: {
    name: 'ApiTargetError',
    kind: 'local',
    status: 500,
    retryable: false,
    message:
      'api.port is 0 (any free port), so only runtime.json knows the port: {hint}; or pass --api-url',
    summary: '`api.port` is 0 and no running stack says which port it took',
    fix: 'pass `--api-url`, or start the stack',
  },
  api_url_invalid: {
    name: 'ApiTargetError',
    kind: 'local',
    status: 500,
    retryable: false,
    message: 'bad API URL {url}: {reason}',
    summary: 'the API URL is not an http(s) URL',
    fix: 'fix `--api-url`',
  },
  api_unreachable: {
    kind: 'local',
    status: 503,
    retryable: true,
    message: 'cannot reach the brain at {url}: {reason}',
    summary: '`caesar chat` / `invoke` cannot reach the brain',
    fix: 'is `caesar up` running? `--api-url`, `--data-dir`',
  },
  api_timeout: {
    kind: 'local',
    status: 504,
    retryable: true,
    message: 'the brain at {url} did not answer {what} within {timeout} ms',
    summary: 'the brain did not answer in time',
    fix: 'raise `--timeout`, or look at the brain',
  },
  api_response_too_large: {
    kind: 'local',
    status: 502,
    retryable: false,
    message: 'the answer to {what} is larger than {limit} bytes',
    summary: "the brain's answer was larger than the client takes",
    fix: 'ask for less (`--limit`)',
  },
  api_bad_response: {
    kind: 'local',
    status: 502,
    retryable: false,
    message: 'the answer to {what} {problem}',
    summary: "the answer was not the API's shape (another server on that port?)",
    fix: 'check `--api-url`',
  },
} as const satisfies Record<string, ErrorEntry>;

/** Where a code can appear: on the wire (worker, brain), in an API answer, or locally. */
export type ErrorKind = 'worker' | 'brain' | 'http' | 'local';

export interface ErrorEntry {
  readonly kind: ErrorKind;
  /** The generated class's `name` when it is not the code's (`config_invalid`: `ConfigError`). */
  readonly name?: string;
  /** HTTP status of an API answer with this code (and the ADR-32 header's value). */
  readonly status: number;
  /** The default: a failure may say otherwise (SQLite busy, an LLM rate limit). */
  readonly retryable: boolean;
  /** Template with `{name}` placeholders. */
  readonly message: string;
  /** What the code means, for docs/errors.md and as the message a 5xx shows a caller. */
  readonly summary: string;
  /** What to do, for docs/errors.md. */
  readonly fix: string;
}
