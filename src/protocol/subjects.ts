import {
  CALLABLE_NAME_PATTERN,
  TOOL_NAME_PATTERN,
  INSTANCE_ID_PATTERN,
  splitCallable,
} from './names.js';
import { errorClass } from '../errors/index.js';

/**
 * Every subject CAESAR uses is built here, from checked tokens. Nothing else in the code
 * base writes a subject string (docs/protocol.md lists them; docs/security.md derives the
 * NATS permissions from the same builders).
 */
const DISPATCH_PREFIX = 'caesar.dispatch.tool';
const PREFLIGHT_PREFIX = 'caesar.preflight.tool';
const RESULT_PREFIX = 'caesar.result';

/** Workers announce themselves here when they start. */
export const REGISTRY_HELLO_SUBJECT = 'caesar.registry.hello';
/** Workers announce a graceful stop here. */
export const REGISTRY_BYE_SUBJECT = 'caesar.registry.bye';

/** The ADR-32 service-discovery prefix. */
const SRV_PREFIX = '$SRV';
export type SrvVerb = 'PING' | 'INFO' | 'STATS';
export const SRV_VERBS: readonly SrvVerb[] = ['PING', 'INFO', 'STATS'];

/** Prefix of every CAESAR tool's ADR-32 service name (`caesar-calculator`). */
const SERVICE_NAME_PREFIX = 'caesar-';

/** Queue group shared by every instance of a tool, so exactly one runs each call. */
export const DISPATCH_QUEUE_GROUP = 'caesar-tool';

export const SubjectTokenError = errorClass(
  'subject_token_invalid',
  (what: string, value: string, pattern: RegExp) => ({
    params: { what, value: `'${value}'`, pattern: pattern.source },
  }),
);
export type SubjectTokenError = InstanceType<typeof SubjectTokenError>;

const SERVICE_NAME_PATTERN = /^[A-Za-z0-9_-]+$/;
const INBOX_IDENTITY_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** A callable name (a tool's, or an action's `tool.action`: two subject tokens). */
function checkTool(tool: string): string {
  if (!CALLABLE_NAME_PATTERN.test(tool)) {
    throw new SubjectTokenError('tool name', tool, CALLABLE_NAME_PATTERN);
  }
  return tool;
}

/**
 * The wildcard over every tool's subjects under `prefix`: `>`, since an action's subject has
 * one token more than a one-action tool's (`caesar.dispatch.tool.home_assistant.entities`).
 */
const ANY_TOOL = '>';

function checkInstance(id: string): string {
  if (!INSTANCE_ID_PATTERN.test(id)) {
    throw new SubjectTokenError('instance id', id, INSTANCE_ID_PATTERN);
  }
  return id;
}

/**
 * `caesar.dispatch.tool.<tool>`, or `caesar.dispatch.tool.<tool>.<action>` for an action;
 * `'*'` gives the wildcard over every tool and action, for permissions and monitoring.
 */
export function dispatchSubject(tool: string): string {
  return `${DISPATCH_PREFIX}.${tool === '*' ? ANY_TOOL : checkTool(tool)}`;
}

/** `caesar.preflight.tool.<tool>` (`.<action>` for an action); `'*'` gives the wildcard. */
export function preflightSubject(tool: string): string {
  return `${PREFLIGHT_PREFIX}.${tool === '*' ? ANY_TOOL : checkTool(tool)}`;
}

/**
 * The ADR-32 service name of a tool: `caesar-<tool>`. An action is an instance of its tool's
 * service (`caesar-home_assistant` serves `home_assistant.entities` and
 * `home_assistant.call_service`, each instance with its own id and spec), so a tool's
 * identity owns the discovery subjects of all its actions (ADR 0092).
 */
export function serviceName(tool: string): string {
  return `${SERVICE_NAME_PREFIX}${splitCallable(checkTool(tool)).tool}`;
}

/** The tool a CAESAR service name stands for, or undefined for any other service. */
export function toolFromServiceName(name: string): string | undefined {
  if (!name.startsWith(SERVICE_NAME_PREFIX)) return undefined;
  const tool = name.slice(SERVICE_NAME_PREFIX.length);
  return TOOL_NAME_PATTERN.test(tool) ? tool : undefined;
}

/**
 * The subjects of every action of `tool` under dispatch or preflight:
 * `caesar.dispatch.tool.<tool>.*`. For permissions: a tool's identity may serve each of its
 * actions, and nothing of another tool's.
 */
export function actionsSubject(kind: 'dispatch' | 'preflight', tool: string): string {
  if (!TOOL_NAME_PATTERN.test(tool))
    throw new SubjectTokenError('tool name', tool, TOOL_NAME_PATTERN);
  return `${kind === 'dispatch' ? DISPATCH_PREFIX : PREFLIGHT_PREFIX}.${tool}.*`;
}

/**
 * `caesar.result.<tool>.<instance>`: one instance's answers to the brain's question "what
 * became of decision X" (issue 34, ADR 0099). Instance-specific, so the brain asks the
 * instance it means and nobody else answers for it; `'*'` as the tool gives the wildcard
 * over every tool (the brain's permission), no instance gives the wildcard over the
 * instances of `tool` and of its actions (the tool identity's permission).
 */
export function resultSubject(tool: string, instance?: string): string {
  if (tool === '*') return `${RESULT_PREFIX}.${ANY_TOOL}`;
  if (instance === undefined) {
    if (!TOOL_NAME_PATTERN.test(tool))
      throw new SubjectTokenError('tool name', tool, TOOL_NAME_PATTERN);
    return `${RESULT_PREFIX}.${tool}.${ANY_TOOL}`;
  }
  return `${RESULT_PREFIX}.${checkTool(tool)}.${checkInstance(instance)}`;
}

/**
 * ADR-32 discovery subjects: `$SRV.<verb>`, `$SRV.<verb>.<service>`,
 * `$SRV.<verb>.<service>.<id>`.
 */
export function srvSubject(verb: SrvVerb | '*', service?: string, id?: string): string {
  if (service === undefined) return `${SRV_PREFIX}.${verb}`;
  if (service !== '*' && !SERVICE_NAME_PATTERN.test(service)) {
    throw new SubjectTokenError('service name', service, SERVICE_NAME_PATTERN);
  }
  if (id === undefined) return `${SRV_PREFIX}.${verb}.${service}`;
  return `${SRV_PREFIX}.${verb}.${service}.${id === '*' ? '*' : checkInstance(id)}`;
}

/** Default inbox prefix; least-privilege deployments give each identity its own. */
const DEFAULT_INBOX_PREFIX = '_INBOX';

/** An inbox prefix such as `_INBOX.worker-kitchen`: tokens only, no wildcards. */
export function inboxPrefix(identity?: string): string {
  if (identity === undefined) return DEFAULT_INBOX_PREFIX;
  if (!INBOX_IDENTITY_PATTERN.test(identity)) {
    throw new SubjectTokenError('inbox identity', identity, INBOX_IDENTITY_PATTERN);
  }
  return `${DEFAULT_INBOX_PREFIX}.${identity}`;
}

/*
 * Jobs (issue 33, ADR 0098): long work submitted to a JetStream work-queue stream. The brain
 * alone submits (`caesar.job.submit.<tool>`); a worker pulls from its tool's durable consumer,
 * answers on its tool's event and heartbeat subjects, and hears cancellations on its tool's
 * cancel subject. The JetStream API subjects are built here too, so the permissions that
 * allow them come from the same builders.
 */
const JOB_PREFIX = 'caesar.job';
/** The work-queue stream every job waits in until a worker takes and finishes it. */
export const JOB_STREAM = 'caesar-jobs';
/** The stream of what workers say about jobs (started, progress, finished, failed). */
export const JOB_EVENT_STREAM = 'caesar-job-events';
/** The brain's durable consumer on {@link JOB_EVENT_STREAM}. */
export const JOB_EVENT_CONSUMER = 'brain';
const JOB_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

function checkJobId(id: string): string {
  if (!JOB_ID_PATTERN.test(id)) throw new SubjectTokenError('job id', id, JOB_ID_PATTERN);
  return id;
}

function checkToolOnly(tool: string): string {
  if (!TOOL_NAME_PATTERN.test(tool)) {
    throw new SubjectTokenError('tool name', tool, TOOL_NAME_PATTERN);
  }
  return tool;
}

type JobVerb = 'submit' | 'event' | 'heartbeat' | 'cancel';

/**
 * `caesar.job.<verb>.<tool>` (submit), or `caesar.job.<verb>.<tool>.<job id>` (event,
 * heartbeat, cancel); `'*'` for the tool gives the wildcard over every tool, `'*'` for the
 * job id the wildcard over one tool's jobs. Jobs are tools, not actions (one subject token).
 */
export function jobSubject(verb: JobVerb, tool: string, jobId?: string): string {
  const t = tool === '*' ? '*' : checkToolOnly(tool);
  if (verb === 'submit') return `${JOB_PREFIX}.submit.${t}`;
  if (tool === '*') return `${JOB_PREFIX}.${verb}.>`;
  const id = jobId === undefined || jobId === '*' ? '*' : checkJobId(jobId);
  return `${JOB_PREFIX}.${verb}.${t}.${id}`;
}

/** The durable pull consumer a tool's workers share on {@link JOB_STREAM}: `tool-<tool>`. */
export function jobConsumer(tool: string): string {
  return `tool-${checkToolOnly(tool)}`;
}

/** A job worker's reply inbox prefix, one per tool: `_INBOX.caesar-job.<tool>`. */
export function jobInboxPrefix(tool: string): string {
  return `${DEFAULT_INBOX_PREFIX}.caesar-job.${checkToolOnly(tool)}`;
}

const JS_API = '$JS.API';

/** JetStream API subjects CAESAR uses (nats-server 2.9). */
export const jsApi = {
  /** The account's JetStream info: answered only where JetStream is on. */
  info: `${JS_API}.INFO`,
  streamCreate: (stream: string) => `${JS_API}.STREAM.CREATE.${stream}`,
  streamUpdate: (stream: string) => `${JS_API}.STREAM.UPDATE.${stream}`,
  streamInfo: (stream: string) => `${JS_API}.STREAM.INFO.${stream}`,
  streamMsgDelete: (stream: string) => `${JS_API}.STREAM.MSG.DELETE.${stream}`,
  consumerCreate: (stream: string, consumer: string) =>
    `${JS_API}.CONSUMER.DURABLE.CREATE.${stream}.${consumer}`,
  consumerInfo: (stream: string, consumer: string) =>
    `${JS_API}.CONSUMER.INFO.${stream}.${consumer}`,
  msgNext: (stream: string, consumer: string) =>
    `${JS_API}.CONSUMER.MSG.NEXT.${stream}.${consumer}`,
  /** Every API subject: the brain's, which creates the streams and consumers. */
  any: `${JS_API}.>`,
  /** The ack subjects of one consumer's deliveries: `$JS.ACK.<stream>.<consumer>.>`. */
  acks: (stream: string, consumer: string) => `$JS.ACK.${stream}.${consumer}.>`,
} as const;
