import { describe, expect, test } from 'vitest';
import { digArgs, parseDig } from '../../../workers/dns_lookup/dig.js';
import { DnsLookupInputSchema } from '../../../workers/dns_lookup/schema.js';
import { dnsLookupTool } from '../../../workers/dns_lookup/index.js';

describe('dns_lookup input', () => {
  test.each([
    ['example.org', true],
    ['example.org.', true],
    ['_sip._tcp.example.org', true],
    ['xn--bcher-kva.example', true],
    ['-oProxyCommand=id', false],
    ['--help; rm -rf /', false],
    ['@198.51.100.1', false],
    ['+short', false],
    ['a..b', false],
    ['a-.example', false],
    [`${'a'.repeat(64)}.example`, false],
    ['exa mple.org', false],
    ['', false],
  ])('the name %j is %s', (name, ok) => {
    expect(DnsLookupInputSchema.safeParse({ name }).success).toBe(ok);
  });

  test('the type is one of the listed record types, A unless given', () => {
    expect(DnsLookupInputSchema.parse({ name: 'example.org' }).type).toBe('A');
    expect(DnsLookupInputSchema.safeParse({ name: 'example.org', type: 'ANY' }).success).toBe(
      false,
    );
    expect(DnsLookupInputSchema.safeParse({ name: 'example.org', type: '-x' }).success).toBe(false);
  });
});

describe('digArgs', () => {
  test('name and type go through -q and -t; the server and port from the config', () => {
    expect(
      digArgs({ name: 'example.org', type: 'MX' }, { server: '127.0.0.1', port: 5353 }),
    ).toEqual([
      '@127.0.0.1',
      '-p',
      '5353',
      '+tries=1',
      '+time=3',
      '+noall',
      '+answer',
      '+comments',
      '-t',
      'MX',
      '-q',
      'example.org',
    ]);
    expect(digArgs({ name: 'example.org', type: 'A' }, {})[0]).toBe('+tries=1');
  });
});

describe('parseDig', () => {
  const input = { name: 'host.example.test', type: 'A' as const };

  test('the status from the header, each answer line a record', () => {
    const stdout = [
      ';; Got answer:',
      ';; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: 1',
      ';; ANSWER SECTION:',
      'host.example.test.\t300\tIN\tA\t192.0.2.7',
      'host.example.test.\t60\tIN\tTXT\t"v=hello world"',
      '',
    ].join('\n');
    expect(parseDig({ stdout, stderr: '', exitCode: 0 }, input)).toEqual({
      name: 'host.example.test',
      type: 'A',
      status: 'NOERROR',
      answers: [
        { name: 'host.example.test.', ttl: 300, type: 'A', data: '192.0.2.7' },
        { name: 'host.example.test.', ttl: 60, type: 'TXT', data: '"v=hello world"' },
      ],
    });
  });

  test('no server reached is a retryable backend_error; another failure is not retryable', () => {
    const none =
      ';; communications error to 127.0.0.1#53: timed out\n;; no servers could be reached\n';
    expect(() => parseDig({ stdout: none, stderr: '', exitCode: 9 }, input)).toThrow(
      expect.objectContaining({ code: 'backend_error', retryable: true }),
    );
    expect(() => parseDig({ stdout: '', stderr: 'dig: bad', exitCode: 1 }, input)).toThrow(
      expect.objectContaining({ code: 'backend_error', retryable: false }),
    );
  });
});

describe('the tool', () => {
  test('its spec says sandbox and network; its card runs it in a sandbox', () => {
    expect(dnsLookupTool.spec.execution_locality).toBe('sandbox');
    expect(dnsLookupTool.spec.resource_requirements).toEqual({
      cpu: 'low',
      memory_mb: 128,
      network: true,
    });
    expect(dnsLookupTool.spec.output_trust).toBe('untrusted');
    expect(dnsLookupTool.sandbox.command).toMatchObject({
      program: '/usr/bin/dig',
      network: true,
      read: [],
      write: [],
    });
  });
});
