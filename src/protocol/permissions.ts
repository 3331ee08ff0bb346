import {
  actionsSubject,
  DISPATCH_QUEUE_GROUP,
  REGISTRY_BYE_SUBJECT,
  REGISTRY_HELLO_SUBJECT,
  SRV_VERBS,
  dispatchSubject,
  inboxPrefix,
  preflightSubject,
  resultSubject,
  serviceName,
  srvSubject,
  jobConsumer,
  jobInboxPrefix,
  jobSubject,
  jsApi,
  JOB_EVENT_CONSUMER,
  JOB_EVENT_STREAM,
  JOB_STREAM,
} from './subjects.js';
import { MAX_ACTIONS_PER_TOOL } from './names.js';

/** A nats-server `permissions` block (JSON is valid nats-server configuration syntax). */
export interface NatsPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
  allow_responses?: boolean | { max: number; expires?: string };
}

/**
 * Least privilege for a worker host serving `tools` (tool names, not actions): receive only
 * its own tools' dispatches and preflights, each action's included (queue-group
 * subscriptions), answer discovery for its own services, announce hello/bye, and reply to
 * requests it received (`allow_responses`). Derived from the same builders the code uses, so
 * docs and code cannot drift.
 *
 * Replies: nats-server counts them per connection and request, and every service instance on
 * the connection answers the generic `$SRV.INFO` sweep, so one reply per request would let
 * only the first instance be found (a second tool, or a second action, never would). The
 * bound is the most instances the identity may run: {@link MAX_ACTIONS_PER_TOOL} per tool.
 */
export function workerPermissions(tools: readonly string[]): NatsPermissions {
  const subscribe: string[] = SRV_VERBS.map((v) => srvSubject(v));
  const publish: string[] = [REGISTRY_HELLO_SUBJECT, REGISTRY_BYE_SUBJECT];
  for (const tool of tools) {
    // jobs (ADR 0098): pull from its own tool's consumer only, ack only that consumer's
    // deliveries, say things only about its own tool's jobs, hear its own tool's cancels
    publish.push(
      jsApi.msgNext(JOB_STREAM, jobConsumer(tool)),
      jsApi.acks(JOB_STREAM, jobConsumer(tool)),
      jobSubject('event', tool, '*'),
      jobSubject('heartbeat', tool, '*'),
    );
    subscribe.push(`${jobInboxPrefix(tool)}.>`, jobSubject('cancel', tool, '*'));
  }
  for (const tool of tools) {
    const service = serviceName(tool);
    subscribe.push(
      `${dispatchSubject(tool)} ${DISPATCH_QUEUE_GROUP}`,
      `${preflightSubject(tool)} ${DISPATCH_QUEUE_GROUP}`,
      // its actions, if it has several (ADR 0092): `caesar.dispatch.tool.<tool>.*`
      `${actionsSubject('dispatch', tool)} ${DISPATCH_QUEUE_GROUP}`,
      `${actionsSubject('preflight', tool)} ${DISPATCH_QUEUE_GROUP}`,
      srvSubject('*', service),
      srvSubject('*', service, '*'),
      // the brain's result queries to its own instances and its actions' (ADR 0099)
      resultSubject(tool),
    );
  }
  return {
    publish: { allow: publish },
    subscribe: { allow: subscribe },
    allow_responses: { max: Math.max(1, tools.length) * MAX_ACTIONS_PER_TOOL },
  };
}

/**
 * A remote site's leaf connection to the hub, for a leaf server whose workers serve `tools`
 * (ADR 0051): a worker's permissions as far as nats-server 2.9 can apply them to a leaf
 * connection (`publish` is what the site may send to the hub, `subscribe` what the hub sends
 * it). Two things differ. 2.9 applies no response permissions to a leaf, so replies are
 * allowed to the reply inboxes of `inboxOwners` (the brains' and operators' public keys)
 * only. And it checks a queue subscription made after the link is up as the text
 * `<subject> <queue>`, which no per-tool subject matches, so the dispatch and preflight
 * subjects are allowed for any tool (`caesar.dispatch.tool.>`): per tool, a worker started on
 * the site after its leaf server connected would never get a call.
 */
export function leafPermissions(
  tools: readonly string[],
  inboxOwners: readonly string[],
): NatsPermissions {
  const worker = workerPermissions(tools);
  const queued = [dispatchSubject('*'), preflightSubject('*')];
  const discovery = worker.subscribe.allow.filter((s) => !s.includes(' '));
  return {
    publish: {
      allow: [...worker.publish.allow, ...inboxOwners.map((key) => `${inboxPrefix(key)}.>`)],
    },
    subscribe: { allow: [...queued, ...discovery] },
  };
}

/**
 * The brain: dispatch and preflight any tool, sweep discovery, hear announcements, and get
 * replies on its own inbox prefix only (connect with `inboxPrefix: inboxPrefix(identity)`).
 */
export function brainPermissions(identity = 'brain'): NatsPermissions {
  return {
    publish: {
      allow: [
        dispatchSubject('*'),
        preflightSubject('*'),
        // what became of a call whose reply the bus lost (ADR 0099)
        resultSubject('*'),
        ...SRV_VERBS.map((v) => srvSubject(v)),
        srvSubject('*', '*'),
        srvSubject('*', '*', '*'),
        // jobs (ADR 0098): only the brain submits and cancels; it makes the streams and
        // consumers and reads the workers' events through its own consumer
        jobSubject('submit', '*'),
        jobSubject('cancel', '*'),
        jsApi.any,
        jsApi.acks(JOB_EVENT_STREAM, JOB_EVENT_CONSUMER),
      ],
    },
    subscribe: {
      allow: [
        `${inboxPrefix(identity)}.>`,
        REGISTRY_HELLO_SUBJECT,
        REGISTRY_BYE_SUBJECT,
        jobSubject('heartbeat', '*'),
      ],
    },
  };
}
