import type { NatsConnection } from '@nats-io/nats-core';
import { discoverServices, type DiscoveredTool } from '../brain/registry/index.js';

/** What `caesar legion list --json` prints per tool (the full spec is left out). */
export type ListedTool = Omit<DiscoveredTool, 'spec'> & { title: string };

export async function listTools(nc: NatsConnection, windowMs: number): Promise<ListedTool[]> {
  const tools = await discoverServices(nc, { windowMs });
  return tools.map(({ spec, ...rest }) => ({ ...rest, title: spec.title }));
}

export function printInstancesTable(tools: ListedTool[]): void {
  if (tools.length === 0) {
    console.log(
      'no tools connected (start one with `caesar legion serve-tool <name>` or `caesar up`)',
    );
    return;
  }
  const rows = [
    ['TOOL', 'VERSION', 'INSTANCES', 'HOSTS', 'IN-FLIGHT', 'REQUESTS', 'ERRORS'],
    ...tools.map((t) => [
      t.tool,
      t.version,
      String(t.instances.length),
      t.hosts.join(','),
      String(t.inFlight),
      String(t.requests),
      String(t.errors),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows)
    console.log(
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
}
