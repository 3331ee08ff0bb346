import type { Logger } from '../../log/index.js';
import { SRV_METADATA } from '../../protocol/index.js';
import type { SpecChangedEvent } from './events.js';
import type { Report } from './outputs.js';

/** Logs one report of the registry's state machine: the registry's every log line on it. */
export function logReport(logger: Logger, r: Report): void {
  switch (r.type) {
    case 'instance_added': {
      const { tool, id, host, version, source, restarts, capacity } = r.event.instance;
      const fields = { tool, instanceId: id, host, version, source, restarts, capacity };
      logger.info(fields, 'tool instance added');
      const ignored = [
        [SRV_METADATA.restarts, r.event.instance.restartsIgnored],
        [SRV_METADATA.capacity, r.event.instance.capacityIgnored],
      ] as const;
      for (const [key, reason] of ignored) {
        if (reason !== undefined) {
          logger.debug({ tool, instanceId: id, reason }, `ignored its ${key} metadata`);
        }
      }
      return;
    }
    case 'instance_removed': {
      const { tool, instance, reason } = r.event;
      logger.info(
        { tool, instanceId: instance.id, host: instance.host, reason },
        'tool instance removed',
      );
      return;
    }
    case 'spec_changed':
      logger.warn({ ...r.event }, specChangeMessage(r.event));
      return;
    case 'bye_refused':
      logger.warn(
        { tool: r.event.tool, instance: r.event.instanceId },
        'ignored a bye for an instance that still answers its PING (spoofed or early)',
      );
      return;
    case 'hello_unconfirmed':
      logger.debug(
        { hello: r.hello, reason: r.event.reason },
        'announced instance not confirmed; not listed',
      );
      return;
    case 'hello_ignored':
      logger.debug({ hello: r.hello }, 'ignoring hello whose service does not match its tool');
      return;
    case 'invalid_info':
      logger.debug({ reason: r.reason }, 'ignoring invalid INFO reply');
      return;
    case 'hint_unconfirmed':
      logger.debug({ reason: r.reason }, 'sweep answer not confirmed');
      return;
    case 'sweep':
      return;
  }
}

/** The log line of a spec_changed report: what happened and the operator's next step. */
function specChangeMessage(event: SpecChangedEvent): string {
  return event.kind === 'instance_spec_changed'
    ? `instance ${event.instance} of ${event.tool} now claims another spec under the same id; ` +
        'it keeps the spec it first confirmed (a running worker never changes its spec: ' +
        `check who holds the NKEY of ${event.tool})`
    : `a new instance of ${event.tool} declares a spec that lowers safety ` +
        `(${event.lowered.join(', ')}); the brain keeps the earlier settings. ` +
        'If the change is intended, restart the brain to adopt it';
}
