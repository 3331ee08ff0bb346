import type { HostCapacity, ResourceRequirements } from '../protocol/index.js';

type GpuRequirement = NonNullable<ResourceRequirements['gpu']>;

/**
 * The requirements of a tool's spec that the serving host does not meet, one preflight
 * warning each, naming the requirement, the value asked for and the host's (ADR 0091). A
 * value the host cannot tell cheaply (a GPU's memory) is not compared: no warning claims what
 * was not measured.
 */

export function hostShortfalls(req: ResourceRequirements, host: HostCapacity): string[] {
  const out: string[] = [];
  if (req.min_vcpus !== undefined && req.min_vcpus > host.vcpus) {
    out.push(`min_vcpus: the tool asks for ${req.min_vcpus} vCPUs; this host has ${host.vcpus}`);
  }
  if (req.min_memory_gb !== undefined && req.min_memory_gb > host.memory_gb) {
    out.push(
      `min_memory_gb: the tool asks for ${req.min_memory_gb} GB of memory; this host has ${host.memory_gb} GB`,
    );
  }
  const memoryMbHost = Math.floor(host.memory_gb * 1024);
  if (req.memory_mb > memoryMbHost) {
    out.push(
      `memory_mb: the tool asks for ${req.memory_mb} MB of memory; this host has ${memoryMbHost} MB`,
    );
  }
  if (req.gpu !== undefined) out.push(...gpuShortfalls(req.gpu, host));
  return out;
}

function gpuShortfalls(gpu: GpuRequirement, host: HostCapacity): string[] {
  if (!gpu.required) return [];
  const found = host.gpus.map((g) => `${g.count} ${g.kind}`).join(', ') || 'none found';
  const fitting = gpu.kind === undefined ? host.gpus : host.gpus.filter((g) => g.kind === gpu.kind);
  const count = fitting.reduce((n, g) => n + g.count, 0);
  if (count === 0) {
    const what = gpu.kind === undefined ? 'a GPU' : `a ${gpu.kind} GPU`;
    const field = gpu.kind === undefined ? 'gpu.required' : 'gpu.kind';
    return [`${field}: the tool needs ${what}; this host has ${found}`];
  }
  const wanted = gpu.count;
  if (wanted !== undefined && wanted > count) {
    const kind = gpu.kind === undefined ? '' : ` ${gpu.kind}`;
    return [`gpu.count: the tool asks for ${wanted}${kind} GPUs; this host has ${found}`];
  }
  return [];
}
