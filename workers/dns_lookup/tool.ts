import { defineCommandTool, type CommandToolInput } from '../../src/legion/index.js';
import { digArgs, parseDig } from './dig.js';
import { DnsLookupConfigSchema, DnsLookupInputSchema, DnsLookupOutputSchema } from './schema.js';

/**
 * dns_lookup: one DNS question through `dig`, run in a bubblewrap sandbox (ADR 0097) with the
 * network it needs to reach the resolver and nothing else of the host: the example of a
 * command tool.
 */
export const dnsLookupDeclaration = {
  name: 'dns_lookup',
  version: '1.0.0',
  title: 'DNS lookup',
  description:
    'Looks up DNS records of one name with dig: A (IPv4 address), AAAA (IPv6), CNAME, MX (mail servers), NS, TXT, SOA, SRV, CAA or PTR. Example: {"name": "example.org", "type": "MX"}. Returns the status (NOERROR; NXDOMAIN when the name does not exist) and each record with its TTL. Refuses anything that is not a host name.',
  tags: ['network', 'dns'],
  domain: 'network',
  backend: 'dig',
  capabilities: ['dns_lookup'],
  references: ['https://www.rfc-editor.org/rfc/rfc1035'],
  input: DnsLookupInputSchema,
  output: DnsLookupOutputSchema,
  config: DnsLookupConfigSchema,
  annotations: { readOnly: true, openWorld: true },
  // what a DNS server says is data from outside; it holds nothing of the operator's
  outputTrust: 'untrusted',
  readsPrivate: false,
  licensing: 'Apache-2.0',
  licensingNotes: 'runs dig from ISC BIND 9 (MPL-2.0), installed by the operator',
  command: {
    program: '/usr/bin/dig',
    package: 'bind9-dnsutils',
    args: digArgs,
    network: true,
    limits: { cpuSeconds: 2, memoryMb: 128, timeoutMs: 8000, outputBytes: 256 * 1024 },
  },
  parse: parseDig,
} satisfies CommandToolInput<
  typeof DnsLookupInputSchema,
  typeof DnsLookupOutputSchema,
  typeof DnsLookupConfigSchema
>;

export const dnsLookupTool = defineCommandTool(dnsLookupDeclaration);
