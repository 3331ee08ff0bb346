import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** True for `localhost`, 127.0.0.0/8 and ::1 (also as `[::1]` or IPv4-mapped). */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  const family = isIP(h);
  if (family === 4) return LOOPBACK.check(h, 'ipv4');
  if (family === 6) return LOOPBACK.check(h, 'ipv6');
  return false;
}
