import type { ToolLimits } from '../../config/index.js';
import type { PreflightReply, ResourceRequirements } from '../../protocol/index.js';

/**
 * The operator's side of a preflight (ADR 0091): one warning for each of a tool's resource
 * requirements beyond `tools.limits`, naming the requirement, its value and the limit. The
 * worker warns about its own host; the brain, which holds the config, adds these to the
 * same answer.
 */

/** Most warnings one preflight answer carries (`PreflightReplySchema`). */
const MAX_WARNINGS = 50;

export function limitWarnings(req: ResourceRequirements, limits: ToolLimits): string[] {
  const out: string[] = [];
  const at = (key: string) => `tools.limits.${key}`;
  if (limits.maxVcpus !== undefined && (req.min_vcpus ?? 0) > limits.maxVcpus) {
    out.push(
      `min_vcpus: the tool asks for ${req.min_vcpus} vCPUs; ${at('max_vcpus')} is ${limits.maxVcpus}`,
    );
  }
  if (limits.maxMemoryGb !== undefined) {
    const asked = Math.max(req.min_memory_gb ?? 0, req.memory_mb / 1024);
    if (asked > limits.maxMemoryGb) {
      const field =
        (req.min_memory_gb ?? 0) >= req.memory_mb / 1024 ? 'min_memory_gb' : 'memory_mb';
      out.push(
        `${field}: the tool asks for ${round(asked)} GB of memory; ${at('max_memory_gb')} is ${limits.maxMemoryGb}`,
      );
    }
  }
  const wall = req.expected_wall_clock_ms;
  if (limits.maxWallClockMs !== undefined && wall !== undefined && wall > limits.maxWallClockMs) {
    out.push(
      `expected_wall_clock_ms: the tool expects ${wall} ms a call; ${at('max_wall_clock')} is ${limits.maxWallClockMs} ms`,
    );
  }
  if (!limits.allowGpu && req.gpu?.required === true) {
    out.push(`gpu.required: the tool needs a GPU; ${at('allow_gpu')} is false`);
  }
  return out;
}

/** The worker's answer with the operator's warnings after its own. */
export function withLimitWarnings(reply: PreflightReply, limits: ToolLimits): PreflightReply {
  const extra = limitWarnings(reply.resource_requirements, limits);
  if (extra.length === 0) return reply;
  return { ...reply, warnings: [...reply.warnings, ...extra].slice(0, MAX_WARNINGS) };
}

function round(gb: number): number {
  return Math.round(gb * 10) / 10;
}
