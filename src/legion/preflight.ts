import type { Msg } from '@nats-io/nats-core';
import type { Logger } from '../log/index.js';
import type { HostCapacity, PreflightReply, WorkerRef } from '../protocol/index.js';
import type { ToolStartContext } from './context.js';
import type { ToolDefinition } from './define.js';
import { hostShortfalls } from './host-shortfalls.js';
import type { EndpointStats } from './stats.js';

const encoder = new TextEncoder();
/** Most warnings one reply carries (`PreflightReplySchema`). */
const MAX_WARNINGS = 50;

/** Builds the callback of a tool's preflight endpoint. A throwing check is a failed check. */
export function createPreflightHandler(
  tool: ToolDefinition,
  ctx: ToolStartContext,
  stats: EndpointStats,
  logger: Logger,
  capacity: HostCapacity,
): (msg: Msg) => void {
  return (msg) => {
    const started = performance.now();
    void runPreflight(tool, ctx, logger, capacity).then((reply) => {
      stats.record(performance.now() - started, reply.ok ? undefined : 'preflight not ok');
      try {
        msg.respond(encoder.encode(JSON.stringify(reply)));
      } catch (err) {
        logger.warn({ err }, 'could not send the preflight reply');
      }
    });
  };
}

/**
 * The tool's preflight: its own check, and one warning for each resource requirement this
 * host (`capacity`) does not meet, first (ADR 0091). A warning leaves `ok` as the check said:
 * the brain asks the operator before such a call runs.
 */
export async function runPreflight(
  tool: ToolDefinition,
  ctx: ToolStartContext,
  logger: Logger,
  capacity: HostCapacity,
): Promise<PreflightReply> {
  const host = hostShortfalls(tool.spec.resource_requirements, capacity);
  const base = {
    v: 1 as const,
    tool: tool.spec.name,
    execution_locality: tool.spec.execution_locality,
    resource_requirements: tool.spec.resource_requirements,
    worker: ctx.worker satisfies WorkerRef,
  };
  if (!tool.preflight) return { ...base, ok: true, warnings: host, checks: [] };
  try {
    const r = await tool.preflight(ctx);
    const warnings = [...host, ...(r.warnings ?? [])].slice(0, MAX_WARNINGS);
    return { ...base, ok: r.ok, warnings, checks: r.checks ?? [] };
  } catch (err) {
    logger.warn({ err }, 'preflight check threw');
    const detail = err instanceof Error ? err.message : String(err);
    return {
      ...base,
      ok: false,
      warnings: host,
      checks: [{ name: 'preflight', ok: false, detail }],
    };
  }
}
