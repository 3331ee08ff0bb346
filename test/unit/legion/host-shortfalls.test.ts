import { describe, expect, test } from 'vitest';
import { hostShortfalls } from '../../../src/legion/host-shortfalls.js';
import type { HostCapacity, ResourceRequirements } from '../../../src/protocol/index.js';

// Issue 31: a preflight warning for each requirement the serving host does not meet.

const HOST: HostCapacity = { vcpus: 4, memory_gb: 8, gpus: [{ kind: 'rocm', count: 1 }] };
const BASE: ResourceRequirements = { cpu: 'low', memory_mb: 64, network: false };

describe('hostShortfalls', () => {
  test('a tool the host fits has no warning', () => {
    expect(hostShortfalls({ ...BASE, min_vcpus: 4, min_memory_gb: 8 }, HOST)).toEqual([]);
  });

  test.each([
    [{ min_vcpus: 1024 }, 'min_vcpus: the tool asks for 1024 vCPUs; this host has 4'],
    [{ min_memory_gb: 64 }, 'min_memory_gb: the tool asks for 64 GB of memory; this host has 8 GB'],
    [
      { memory_mb: 16_384 },
      'memory_mb: the tool asks for 16384 MB of memory; this host has 8192 MB',
    ],
    [
      { gpu: { required: true, kind: 'cuda' } },
      'gpu.kind: the tool needs a cuda GPU; this host has 1 rocm',
    ],
  ])('%o names the requirement, the value asked and the host’s', (req, warning) => {
    expect(hostShortfalls({ ...BASE, ...req }, HOST)).toEqual([warning]);
  });

  test('a required GPU on a host with none found, and a GPU only wanted', () => {
    const none = { ...HOST, gpus: [] };
    expect(hostShortfalls({ ...BASE, gpu: { required: true } }, none)).toEqual([
      'gpu.required: the tool needs a GPU; this host has none found',
    ]);
    expect(hostShortfalls({ ...BASE, gpu: { required: false, kind: 'cuda' } }, none)).toEqual([]);
  });

  test('a GPU count beyond the host warns; a GPU memory the host cannot tell does not', () => {
    const gpu = { required: true, kind: 'rocm', count: 2, min_vram_gb: 80 };
    expect(hostShortfalls({ ...BASE, gpu }, HOST)).toEqual([
      'gpu.count: the tool asks for 2 rocm GPUs; this host has 1 rocm',
    ]);
  });
});
