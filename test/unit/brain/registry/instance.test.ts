import { describe, expect, test } from 'vitest';
import { parseInfoReply, SpecCache } from '../../../../src/brain/registry/instance.js';
import { SRV_METADATA, SRV_TYPES, specSha256 } from '../../../../src/protocol/index.js';
import { createEchoTool } from '../../../fixtures/tools.js';

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

// ADR 0105: beside its reply key, an instance declares the X25519 key it MACs replies with.
describe('an INFO answer and its reply_dh', () => {
  const dh = `${'A'.repeat(43)}.${'B'.repeat(86)}`;

  test('the declaration is part of the instance, kept as declared (its signature is checked on use)', () => {
    const parsed = parseInfoReply(
      info({ [SRV_METADATA.replyKey]: key, [SRV_METADATA.replyDh]: dh }),
      new SpecCache(),
    );
    expect(parsed).toMatchObject({ kind: 'instance', instance: { replyKey: key, replyDh: dh } });
  });

  test('caesar.grants listing v2 beside a reply_dh marks an instance that takes v2 grants (ADR 0108)', () => {
    const parse = (metadata: Record<string, string>) => {
      const parsed = parseInfoReply(info(metadata), new SpecCache());
      if (parsed.kind !== 'instance') throw new Error(parsed.kind);
      return parsed.instance.grantV2;
    };
    const keys = { [SRV_METADATA.replyKey]: key, [SRV_METADATA.replyDh]: dh };
    expect(parse({ ...keys, [SRV_METADATA.grants]: 'v1,v2' })).toBe(true);
    expect(parse({ ...keys, [SRV_METADATA.grants]: 'v1' })).toBeUndefined();
    expect(parse(keys)).toBeUndefined();
    // without an X25519 key there is no key to MAC with
    expect(parse({ [SRV_METADATA.replyKey]: key, [SRV_METADATA.grants]: 'v1,v2' })).toBeUndefined();
    expect(parse({ ...keys, [SRV_METADATA.grants]: `${'v1,'.repeat(30)}v2` })).toBeUndefined();
  });

  test.each([
    ['malformed', { [SRV_METADATA.replyKey]: key, [SRV_METADATA.replyDh]: 'A'.repeat(43) }],
    ['without a reply key to vouch for it', { [SRV_METADATA.replyDh]: dh }],
  ])('one %s makes the answer invalid', (_why, metadata) => {
    expect(parseInfoReply(info(metadata), new SpecCache())).toMatchObject({
      kind: 'invalid',
      reason: expect.stringMatching(/reply_dh/),
    });
  });
});

// Issue 28: an instance restarted by `caesar up` declares its restarts; a bad value is
// ignored (the instance stays), with the reason kept for the registry's debug line.
describe('an INFO answer and its restarts', () => {
  const restarts = { count: 3, last_reason: 'unresponsive', last_at: '2026-12-04T10:00:00.000Z' };

  test('a valid caesar.restarts is part of the instance', () => {
    const parsed = parseInfoReply(
      info({ [SRV_METADATA.restarts]: JSON.stringify(restarts) }),
      new SpecCache(),
    );
    expect(parsed).toMatchObject({ kind: 'instance', instance: { restarts } });
    expect(parsed.kind === 'instance' && 'restartsIgnored' in parsed.instance).toBe(false);
  });

  test('a first start declares none', () => {
    const parsed = parseInfoReply(info({}), new SpecCache());
    expect(parsed.kind === 'instance' && 'restarts' in parsed.instance).toBe(false);
  });

  test.each<[string, string, RegExp]>([
    ['not JSON', '{count:3', /not JSON/],
    ['a count of 0', JSON.stringify({ ...restarts, count: 0 }), /count/],
    ['a count over 1e9', JSON.stringify({ ...restarts, count: 1e9 + 1 }), /count/],
    ['a fractional count', JSON.stringify({ ...restarts, count: 1.5 }), /count/],
    ['an unknown reason', JSON.stringify({ ...restarts, last_reason: 'bored' }), /last_reason/],
    ['a time that is not ISO-8601', JSON.stringify({ ...restarts, last_at: 'today' }), /last_at/],
    ['an unknown field', JSON.stringify({ ...restarts, note: '<b>' }), /note|nrecognized/],
    ['an array', '[1,2,3]', /root|expected object/],
    ['a huge value', JSON.stringify({ ...restarts, pad: 'x'.repeat(10_000) }), /longer than/],
  ])('%s is ignored; the instance stays', (_name, value, reason) => {
    const parsed = parseInfoReply(info({ [SRV_METADATA.restarts]: value }), new SpecCache());
    expect(parsed.kind).toBe('instance');
    if (parsed.kind !== 'instance') return;
    expect('restarts' in parsed.instance).toBe(false);
    expect(parsed.instance.restartsIgnored).toMatch(reason);
  });
});

describe('an INFO answer read with the one JSON ladder (issue 30)', () => {
  const bytes = (text: string) => new TextEncoder().encode(text);

  test('a `__proto__` key anywhere in the INFO is refused before the schema sees it', () => {
    const text = new TextDecoder()
      .decode(info({}))
      .replace('"endpoints":[]', '"endpoints":[],"__proto__":{"x":1}');
    expect(parseInfoReply(bytes(text), new SpecCache())).toEqual({
      kind: 'invalid',
      reason: "INFO reply is a `__proto__` key, which could reach an object's prototype",
    });
  });

  test('a hostile nesting is refused on the text, and a broken one as not JSON', () => {
    const deep = parseInfoReply(bytes('['.repeat(200) + ']'.repeat(200)), new SpecCache());
    expect(deep).toMatchObject({
      kind: 'invalid',
      reason: expect.stringMatching(/^INFO reply is nested deeper than \d+ levels$/),
    });
    expect(parseInfoReply(bytes('{'), new SpecCache())).toEqual({
      kind: 'invalid',
      reason: 'INFO reply is not JSON',
    });
  });

  test('a spec in the metadata with a prototype key is refused by the spec cache', () => {
    const bad = JSON.stringify(spec).replace('{', '{"constructor":{"prototype":{}},');
    expect(new SpecCache().admit(specSha256(spec), bad)).toBe(
      "spec metadata is a `constructor` key, which could reach an object's prototype",
    );
  });
});
