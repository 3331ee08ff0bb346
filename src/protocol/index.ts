export {
  TOOL_NAME_PATTERN,
  ToolNameSchema,
  CALLABLE_NAME_PATTERN,
  CallableNameSchema,
  ACTION_SEPARATOR,
  MAX_CALLABLE_NAME_CHARS,
  MAX_ACTIONS_PER_TOOL,
  actionName,
  splitCallable,
  InstanceIdSchema,
  suggestToolName,
} from './names.js';
export {
  REGISTRY_HELLO_SUBJECT,
  REGISTRY_BYE_SUBJECT,
  SRV_VERBS,
  DISPATCH_QUEUE_GROUP,
  dispatchSubject,
  preflightSubject,
  resultSubject,
  serviceName,
  toolFromServiceName,
  srvSubject,
  inboxPrefix,
  jobSubject,
  jobConsumer,
  jobInboxPrefix,
  jsApi,
  JOB_STREAM,
  JOB_EVENT_STREAM,
  JOB_EVENT_CONSUMER,
} from './subjects.js';
export {
  MAX_JOB_RESULT_BYTES,
  MAX_JOB_PROGRESS_CHARS,
  JobEnvelopeSchema,
  JobEventSchema,
  JobHeartbeatSchema,
  runsAsJob,
  mayRunAsJob,
  jobDelivery,
} from './jobs.js';
export type { JobEnvelope, JobEvent, JobHeartbeat, JobProgress } from './jobs.js';
export type { SrvVerb } from './subjects.js';
export { HEADERS } from './headers.js';
export { canonicalJson } from './canonical.js';
export {
  isWireErrorCode,
  CaesarError,
  InvalidInputError,
  NotConfiguredError,
  BackendError,
  TimeoutError,
  UpstreamEmptyError,
} from './errors.js';
export {
  MAX_ENVELOPE_BYTES,
  MAX_ENVELOPE_DEPTH,
  readWireJson,
  DispatchRequestSchema,
  DispatchReplySchema,
  ErrorBodySchema,
  ResultQuerySchema,
  RESULT_STATES,
} from './envelope.js';
export type {
  DispatchRequest,
  DispatchReply,
  DispatchFailure,
  ErrorBody,
  WorkerRef,
  ResultQuery,
  ResultState,
} from './envelope.js';
export {
  ToolSpecSchema,
  ToolTagSchema,
  matchesTags,
  specDomain,
  specInterruptibility,
  specOutputTrust,
  specSha256,
} from './toolspec.js';
export type {
  ToolSpec,
  ToolAnnotations,
  ExecutionLocality,
  Headless,
  Interruptibility,
  ResourceRequirements,
  TagFilter,
  JobDelivery,
  JobSpec,
} from './toolspec.js';
export { specEffects } from './spec-effects.js';
export { PreflightReplySchema } from './preflight.js';
export type { PreflightReply, PreflightCheck } from './preflight.js';
export { HelloSchema, ByeSchema } from './announce.js';
export type { Hello, Bye } from './announce.js';
export { WorkerRestartsSchema, encodeWorkerRestarts, parseWorkerRestarts } from './restarts.js';
export type { WorkerRestarts } from './restarts.js';
export { HostCapacitySchema, encodeHostCapacity, parseHostCapacity } from './host-capacity.js';
export type { HostCapacity } from './host-capacity.js';
export { SRV_TYPES, SRV_METADATA, SrvPingSchema, SrvInfoSchema, SrvStatsSchema } from './srv.js';
export type { SrvInfo, SrvStats } from './srv.js';
export { workerPermissions, brainPermissions, leafPermissions } from './permissions.js';
export type { NatsPermissions } from './permissions.js';
export {
  CALL_SERVICE_TOOL,
  HOME_ASSISTANT_TOOL,
  HA_CALL_SERVICE,
  HA_ENTITIES,
  isServiceCallTool,
  canonicalCallable,
  otherHaName,
  servedName,
  SELECTOR_KINDS,
  CallServiceInputSchema,
} from './call-service.js';
export type { SelectorKind, CallServiceInput } from './call-service.js';
export {
  MAX_FIELD_ISSUES,
  describeFirstIssue,
  fieldIssuesOf,
  firstFieldIssue,
  forwardIssues,
  placeZodFields,
  summariseFieldIssues,
  unknownKeysWords,
  zodFields,
  zodMessage,
} from './field-issues.js';
export type { FieldIssue, ZodField } from './field-issues.js';
