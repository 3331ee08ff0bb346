import { describe, expect, test } from 'vitest';
import { parseInfoReply, SpecCache } from '../../../src/brain/registry/instance.js';
import { SRV_METADATA, SRV_TYPES, specSha256 } from '../../../src/protocol/index.js';
import { createEchoTool } from '../../fixtures/tools.js';

// ADR 0060: an instance's INFO declares the key that signs its replies; the registry keeps it.

const { spec } = createEchoTool();
const key = `UA${'B'.repeat(54)}`;

function info(metadata: Record<string, string>): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify({
      type: SRV_TYPES.info,
      name: 'caesar-echo',
      id: 'INSTANCE1',
      version: spec.version,
      metadata: {
        [SRV_METADATA.tool]: 'echo',
        [SRV_METADATA.host]: 'nuc',
        [SRV_METADATA.spec]: JSON.stringify(spec),
        [SRV_METADATA.specSha256]: specSha256(spec),
        ...metadata,
      },
      endpoints: [],
    }),
  );
}

describe('an INFO answer and its reply key', () => {
  test('the declared key is part of the instance', () => {
    const parsed = parseInfoReply(info({ [SRV_METADATA.replyKey]: key }), new SpecCache());
    expect(parsed).toMatchObject({
      kind: 'instance',
      instance: { id: 'INSTANCE1', replyKey: key },
    });
  });

  test('a worker from before signed replies declares none, and is still an instance', () => {
    const parsed = parseInfoReply(info({}), new SpecCache());
    expect(parsed.kind).toBe('instance');
    expect(parsed.kind === 'instance' && 'replyKey' in parsed.instance).toBe(false);
  });

  test('a key that is not an NKEY public key makes the answer invalid', () => {
    const parsed = parseInfoReply(info({ [SRV_METADATA.replyKey]: 'not-a-key' }), new SpecCache());
    expect(parsed).toMatchObject({ kind: 'invalid', reason: expect.stringMatching(/reply key/) });
  });
});
