import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Ports below the kernel's ephemeral range (32768-60999 on Linux), which is where every
 * `listen(0)` and every outgoing connection of the suite's processes takes its port: one
 * chosen there and released could be taken by another test file before its server binds it
 * (a CI run lost a nats-server to "address already in use" so). Each vitest worker has its
 * own slice, so no two files running at once are handed the same port.
 */
const PORT_SLICE = 500;
const PORT_SLICES = 24;
let portTurn = 0;

function ephemeralFloor(): number {
  try {
    const low = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0],
    );
    return Number.isInteger(low) && low > PORT_SLICE * PORT_SLICES + 1024 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

async function bindable(port: number): Promise<boolean> {
  const s = createServer();
  const bound = await new Promise<boolean>((resolve) => {
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (bound) await new Promise<void>((resolve) => s.close(() => resolve()));
  return bound;
}

/**
 * A loopback port nothing listens on, for a server a test starts later or for a refused
 * connection: from this worker's own slice below the ephemeral range, checked free.
 */
export async function closedPort(): Promise<number> {
  const pool = Math.max(1, Number(process.env.VITEST_POOL_ID) || 1);
  const base =
    ephemeralFloor() - PORT_SLICE * PORT_SLICES + ((pool - 1) % PORT_SLICES) * PORT_SLICE;
  for (let tries = 0; tries < PORT_SLICE; tries++) {
    const port = base + (portTurn++ % PORT_SLICE);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free loopback port in ${base}-${base + PORT_SLICE - 1}`);
}
