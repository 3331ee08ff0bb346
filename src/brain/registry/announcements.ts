import type { Msg, NatsConnection, Subscription } from '@nats-io/nats-core';
import type { Logger } from '../../log/index.js';
import {
  ByeSchema,
  HelloSchema,
  REGISTRY_BYE_SUBJECT,
  REGISTRY_HELLO_SUBJECT,
  readWireJson,
  type Bye,
  type Hello,
} from '../../protocol/index.js';

interface AnnouncementHandlers {
  hello(hello: Hello): void;
  bye(bye: Bye): void;
}

/**
 * Listens on `caesar.registry.hello` and `caesar.registry.bye`. Messages that fail their
 * schema are logged at debug and dropped: a stray publisher cannot break the registry.
 * Returns the two subscriptions so the caller can drain them.
 */
export function listenForAnnouncements(
  nc: NatsConnection,
  handlers: AnnouncementHandlers,
  logger: Logger,
): Subscription[] {
  const parse = <T>(
    msg: Msg,
    schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } },
  ): T | undefined => {
    const read = readWireJson(msg.data);
    const parsed = schema.safeParse('value' in read ? read.value : undefined);
    if (parsed.success) return parsed.data;
    logger.debug(
      { subject: msg.subject, bytes: msg.data.length },
      'ignoring malformed announcement',
    );
    return undefined;
  };
  const guard = (what: string, fn: () => void) => {
    try {
      fn();
    } catch (err) {
      logger.warn({ err }, `${what} handler failed`);
    }
  };
  return [
    nc.subscribe(REGISTRY_HELLO_SUBJECT, {
      callback: (err, msg) => {
        if (err) return logger.warn({ err }, 'hello subscription failed');
        const hello = parse(msg, HelloSchema);
        if (hello) guard('hello', () => handlers.hello(hello));
      },
    }),
    nc.subscribe(REGISTRY_BYE_SUBJECT, {
      callback: (err, msg) => {
        if (err) return logger.warn({ err }, 'bye subscription failed');
        const bye = parse(msg, ByeSchema);
        if (bye) guard('bye', () => handlers.bye(bye));
      },
    }),
  ];
}
