import { describe, expect, test } from 'vitest';
import {
  capacityFrom,
  memoryGb,
  nvidiaGpuCount,
  readHostCapacity,
  rocmGpuCount,
} from '../../../src/legion/host-capacity.js';
import { HostCapacitySchema } from '../../../src/protocol/index.js';

// Issue 31: what a serving host has, read from what Linux shows cheaply (ADR 0091).

const GIB = 1024 ** 3;
const CPU_NODE = 'cpu_cores_count 8\nsimd_count 0\nmem_banks_count 1\n';
const GPU_NODE = 'cpu_cores_count 0\nsimd_count 240\nmem_banks_count 1\n';

describe('GPUs found', () => {
  test('one NVIDIA GPU per PCI-address directory of /proc/driver/nvidia/gpus', () => {
    expect(nvidiaGpuCount(['0000:01:00.0', '0000:41:00.0'])).toBe(2);
    expect(nvidiaGpuCount(['README', 'params'])).toBe(0);
    expect(nvidiaGpuCount([])).toBe(0);
  });

  test('ROCm GPUs are the kfd topology nodes with SIMD units, at least one when /dev/kfd is there', () => {
    expect(rocmGpuCount(true, [CPU_NODE, GPU_NODE, GPU_NODE])).toBe(2);
    expect(rocmGpuCount(true, [])).toBe(1);
    expect(rocmGpuCount(false, [GPU_NODE])).toBe(0);
  });

  test('a host with none lists none; one with both lists both kinds', () => {
    const base = { vcpus: 4, memoryBytes: 16 * GIB, kfd: false, kfdNodeProperties: [] };
    expect(capacityFrom({ ...base, nvidiaEntries: [] })).toEqual({
      vcpus: 4,
      memory_gb: 16,
      gpus: [],
    });
    expect(
      capacityFrom({
        ...base,
        nvidiaEntries: ['0000:01:00.0'],
        kfd: true,
        kfdNodeProperties: [CPU_NODE, GPU_NODE],
      }).gpus,
    ).toEqual([
      { kind: 'cuda', count: 1 },
      { kind: 'rocm', count: 1 },
    ]);
  });
});

describe('memory and this host', () => {
  test('memory is GB with one decimal', () => {
    expect(memoryGb(8 * GIB)).toBe(8);
    expect(memoryGb(Math.round(7.77 * GIB))).toBe(7.8);
  });

  test("this machine's capacity is a value its own metadata schema takes", () => {
    const capacity = readHostCapacity();
    expect(HostCapacitySchema.safeParse(capacity).success).toBe(true);
    expect(capacity.vcpus).toBeGreaterThanOrEqual(1);
    expect(readHostCapacity()).toBe(capacity);
  });
});
