import { z } from 'zod';
import { unknownKeysWords } from '../../src/legion/index.js';

/** The record types a lookup may ask for. */
export const RECORD_TYPES = [
  'A',
  'AAAA',
  'CNAME',
  'MX',
  'NS',
  'TXT',
  'SOA',
  'SRV',
  'CAA',
  'PTR',
] as const;

/**
 * A host name as RFC 1123 writes it: labels of letters, digits and inner hyphens, at most 63
 * characters each and 253 in all, an optional final dot. No label starts with `-`, so no name
 * can reach dig as an option; nor `@` or `+`, dig's server and option syntax.
 */
const HOSTNAME =
  /^(?=.{1,253}\.?$)(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)*\.?$/;

export const DnsLookupInputSchema = z.strictObject({
  name: z
    .string()
    .max(254)
    .regex(HOSTNAME, 'expected a host name such as example.org (letters, digits, hyphens, dots)')
    .describe('The name to look up, such as example.org or _sip._tcp.example.org'),
  type: z.enum(RECORD_TYPES).default('A').describe('The record type; A unless given'),
});
export type DnsLookupInput = z.output<typeof DnsLookupInputSchema>;

export const DnsRecordSchema = z.object({
  name: z.string(),
  ttl: z.number().int().nonnegative(),
  type: z.string(),
  data: z.string(),
});

export const DnsLookupOutputSchema = z.object({
  name: z.string(),
  type: z.enum(RECORD_TYPES),
  /** The resolver's answer code: NOERROR, NXDOMAIN (no such name), SERVFAIL, REFUSED… */
  status: z.string(),
  answers: z.array(DnsRecordSchema).max(100),
});
export type DnsLookupOutput = z.input<typeof DnsLookupOutputSchema>;

const IP = z.union([z.ipv4(), z.ipv6()]);

function numberFromText(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  return v.trim() === '' ? undefined : Number(v.trim());
}

const shape = {
  /** The resolver to ask, an IP address. @default the host's /etc/resolv.conf */
  server: IP.optional(),
  /** Its port. @default 53 */
  port: z.preprocess(
    numberFromText,
    z.int('expected a port from 1 to 65535').min(1).max(65_535).optional(),
  ),
};

/** `tools.dns_lookup` in caesar.yaml, `CAESAR_TOOLS__DNS_LOOKUP__<KEY>` in the environment. */
export const DnsLookupConfigSchema = z
  .strictObject(shape, { error: unknownKeysWords('dns_lookup', Object.keys(shape)) })
  .default({});
export type DnsLookupConfig = z.output<typeof DnsLookupConfigSchema>;
