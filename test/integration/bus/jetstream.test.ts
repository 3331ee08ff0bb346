import { describe, expect, test } from 'vitest';
import { JetStreamLink, ms } from '../../../src/bus/jetstream.js';
import { startNats } from '../../helpers/nats.js';

// A reader that stops ends its pull at once (issue 30): the brain's job events reader waited
// out its pull's 2 s expiry, and then a 3.5 s bound, before it could exit. The pull the
// server still holds must lose nothing: a message it delivers meanwhile is given back.

const STREAM = 'PULLTEST';
const CONSUMER = 'reader';
/** Longer than any test here may run: only endPull() can end a pull this long. */
const LONG_PULL_MS = 120_000;

async function streamWithConsumer(link: JetStreamLink): Promise<void> {
  await link.ensureStream({
    name: STREAM,
    subjects: ['pulltest.>'],
    retention: 'workqueue',
    storage: 'memory',
  });
  await link.ensureConsumer(STREAM, {
    durable_name: CONSUMER,
    ack_wait: ms(30_000),
    max_deliver: -1,
  });
}

describe('JetStreamLink.endPull', () => {
  test('ends a pull in flight with no delivery; a message the server sends it is given back, not lost', async () => {
    await using nats = await startNats({ jetstream: true });
    const link = new JetStreamLink(await nats.connect(), '_INBOX');
    try {
      await streamWithConsumer(link);
      const pulling = link.next(STREAM, CONSUMER, LONG_PULL_MS);
      link.endPull();
      expect(await pulling).toBeUndefined();

      // the server still holds that pull: it gets this message, and the link gives it back
      await link.publish('pulltest.one', { n: 1 });
      const d = await link.next(STREAM, CONSUMER, 10_000);
      expect(d, 'the message reaches the next pull').toBeDefined();
      expect(JSON.parse(new TextDecoder().decode(d!.msg.data))).toEqual({ n: 1 });
      // delivered first to the pull that was ended, given back, and delivered again
      expect(d!.attempt).toBe(2);
      await link.confirmAck(d!);
    } finally {
      link.close();
    }
  });

  test('close() ends a pull in flight too, and endPull() with none in flight does nothing', async () => {
    await using nats = await startNats({ jetstream: true });
    const link = new JetStreamLink(await nats.connect(), '_INBOX');
    await streamWithConsumer(link);
    link.endPull();
    const pulling = link.next(STREAM, CONSUMER, LONG_PULL_MS);
    link.close();
    expect(await pulling).toBeUndefined();
  });
});
