import type { Msg } from '@nats-io/nats-core';
import type { Logger } from '../log/index.js';
import type { PreflightReply, WorkerRef } from '../protocol/index.js';
import type { ToolStartContext } from './context.js';
import type { ToolDefinition } from './define.js';
import type { EndpointStats } from './stats.js';

const encoder = new TextEncoder();

/** Builds the callback of a tool's preflight endpoint. A throwing check is a failed check. */
export function createPreflightHandler(
  tool: ToolDefinition,
  ctx: ToolStartContext,
  stats: EndpointStats,
  logger: Logger,
): (msg: Msg) => void {
  return (msg) => {
    const started = performance.now();
    void runPreflight(tool, ctx, logger).then((reply) => {
      stats.record(performance.now() - started, reply.ok ? undefined : 'preflight not ok');
      try {
        msg.respond(encoder.encode(JSON.stringify(reply)));
      } catch (err) {
        logger.warn({ err }, 'could not send the preflight reply');
      }
    });
  };
}

export async function runPreflight(
  tool: ToolDefinition,
  ctx: ToolStartContext,
  logger: Logger,
): Promise<PreflightReply> {
  const base = {
    v: 1 as const,
    tool: tool.spec.name,
    execution_locality: tool.spec.execution_locality,
    resource_requirements: tool.spec.resource_requirements,
    worker: ctx.worker satisfies WorkerRef,
  };
  if (!tool.preflight) return { ...base, ok: true, warnings: [], checks: [] };
  try {
    const r = await tool.preflight(ctx);
    return { ...base, ok: r.ok, warnings: r.warnings ?? [], checks: r.checks ?? [] };
  } catch (err) {
    logger.warn({ err }, 'preflight check threw');
    const detail = err instanceof Error ? err.message : String(err);
    return { ...base, ok: false, warnings: [], checks: [{ name: 'preflight', ok: false, detail }] };
  }
}
