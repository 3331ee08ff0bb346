import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { defineCommandTool, type ToolContext } from '../../../src/legion/index.js';
import type { dnsLookupTool } from '../../../workers/dns_lookup/index.js';
import { dnsLookupDeclaration } from '../../../workers/dns_lookup/tool.js';
import { DnsLookupInputSchema, type DnsLookupConfig } from '../../../workers/dns_lookup/schema.js';
import { startFakeDns, type FakeDns } from '../../helpers/fake-dns.js';

/**
 * dns_lookup for real: dig in its bubblewrap sandbox asks a loopback DNS server that speaks
 * RFC 1035's wire format (test/helpers/fake-dns.ts).
 */

let dns: FakeDns;
let scratch: string;
// the shipped definition, with the sandbox's scratch where the test can look
let tool: typeof dnsLookupTool;

beforeAll(async () => {
  dns = await startFakeDns({
    'host.example.test': [
      { type: 'A', data: '192.0.2.7', ttl: 120 },
      { type: 'AAAA', data: '2001:db8::7' },
      { type: 'TXT', data: 'v=hello world' },
    ],
  });
  scratch = await mkdtemp(join(tmpdir(), 'caesar-dns-test-'));
  tool = defineCommandTool({ ...dnsLookupDeclaration, sandbox: { scratchDir: scratch } });
});

afterAll(async () => {
  await tool.stop?.();
  await dns.close();
  await rm(scratch, { recursive: true, force: true });
});

function call(input: unknown, config: DnsLookupConfig = { server: '127.0.0.1', port: dns.port }) {
  const ctx = { signal: new AbortController().signal, config } as ToolContext<DnsLookupConfig>;
  return tool.handler(DnsLookupInputSchema.parse(input), ctx);
}

describe('dns_lookup', () => {
  test('A, AAAA and TXT records from the server, through dig in its sandbox', async () => {
    expect(await call({ name: 'host.example.test' })).toEqual({
      name: 'host.example.test',
      type: 'A',
      status: 'NOERROR',
      answers: [{ name: 'host.example.test.', ttl: 120, type: 'A', data: '192.0.2.7' }],
    });
    expect((await call({ name: 'host.example.test', type: 'AAAA' })).answers[0]?.data).toBe(
      '2001:db8::7',
    );
    expect((await call({ name: 'host.example.test', type: 'TXT' })).answers[0]?.data).toBe(
      '"v=hello world"',
    );
    expect(dns.questions).toContain('host.example.test TXT');
  });

  test('a name the server does not have: NXDOMAIN, no answers', async () => {
    expect(await call({ name: 'nope.example.test' })).toMatchObject({
      status: 'NXDOMAIN',
      answers: [],
    });
  });

  test('a server that does not answer: a retryable backend_error', async () => {
    const closed = await startFakeDns({});
    const port = closed.port;
    await closed.close();
    await expect(
      call({ name: 'host.example.test' }, { server: '127.0.0.1', port }),
    ).rejects.toMatchObject({
      code: 'backend_error',
      retryable: true,
    });
  });

  test('preflight finds bubblewrap and dig; no call leaves scratch behind', async () => {
    expect(await tool.preflight?.({} as never)).toMatchObject({ ok: true });
    const [root] = await readdir(scratch);
    expect(await readdir(join(scratch, root!))).toEqual([]);
  });
});
