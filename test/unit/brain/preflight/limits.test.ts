import { describe, expect, test } from 'vitest';
import { limitWarnings, withLimitWarnings } from '../../../../src/brain/preflight/limits.js';
import type { PreflightReply, ResourceRequirements } from '../../../../src/protocol/index.js';

// Issue 31: a preflight warning for each requirement beyond the operator's `tools.limits`.

const BASE: ResourceRequirements = { cpu: 'low', memory_mb: 64, network: false };

describe('limitWarnings', () => {
  test('no limit set: no warning, whatever the tool asks', () => {
    const req = { ...BASE, min_vcpus: 1024, gpu: { required: true } };
    expect(limitWarnings(req, { allowGpu: true })).toEqual([]);
  });

  test.each([
    [
      { min_vcpus: 16 },
      { maxVcpus: 8 },
      'min_vcpus: the tool asks for 16 vCPUs; tools.limits.max_vcpus is 8',
    ],
    [
      { min_memory_gb: 32 },
      { maxMemoryGb: 16 },
      'min_memory_gb: the tool asks for 32 GB of memory; tools.limits.max_memory_gb is 16',
    ],
    [
      { memory_mb: 20_480 },
      { maxMemoryGb: 16 },
      'memory_mb: the tool asks for 20 GB of memory; tools.limits.max_memory_gb is 16',
    ],
    [
      { expected_wall_clock_ms: 300_000 },
      { maxWallClockMs: 60_000 },
      'expected_wall_clock_ms: the tool expects 300000 ms a call; tools.limits.max_wall_clock is 60000 ms',
    ],
    [
      { gpu: { required: true } },
      { allowGpu: false },
      'gpu.required: the tool needs a GPU; tools.limits.allow_gpu is false',
    ],
  ])('%o beyond %o names the requirement, its value and the limit', (req, limits, warning) => {
    expect(limitWarnings({ ...BASE, ...req }, { allowGpu: true, ...limits })).toEqual([warning]);
  });

  test('within the limits: no warning', () => {
    const req = { ...BASE, min_vcpus: 8, min_memory_gb: 16, gpu: { required: false } };
    expect(limitWarnings(req, { maxVcpus: 8, maxMemoryGb: 16, allowGpu: false })).toEqual([]);
  });

  test("the operator's warnings follow the worker's in the same answer", () => {
    const reply: PreflightReply = {
      v: 1,
      tool: 'render',
      ok: true,
      warnings: ['min_vcpus: the tool asks for 16 vCPUs; this host has 4'],
      checks: [],
      execution_locality: 'local',
      resource_requirements: { ...BASE, min_vcpus: 16 },
      worker: { id: 'w1', host: 'h' },
    };
    expect(withLimitWarnings(reply, { maxVcpus: 8, allowGpu: true }).warnings).toEqual([
      'min_vcpus: the tool asks for 16 vCPUs; this host has 4',
      'min_vcpus: the tool asks for 16 vCPUs; tools.limits.max_vcpus is 8',
    ]);
    expect(withLimitWarnings(reply, { allowGpu: true })).toBe(reply);
  });
});
