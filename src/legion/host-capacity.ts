import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import type { HostCapacity } from '../protocol/index.js';

/**
 * What this host has, for the `caesar.capacity` discovery metadata (ADR 0091): vCPUs, total
 * memory and the GPUs found where finding them is cheap on Linux: a directory per GPU under
 * `/proc/driver/nvidia/gpus` (`cuda`), `/dev/kfd` with its GPU nodes under
 * `/sys/class/kfd/kfd/topology/nodes` (`rocm`). No vendor tool is ever run; nothing found is
 * `[]`. Read once per worker process.
 */

const NVIDIA_GPUS_DIR = '/proc/driver/nvidia/gpus';
const KFD_DEVICE = '/dev/kfd';
const KFD_NODES_DIR = '/sys/class/kfd/kfd/topology/nodes';
/** Most directory entries looked at, and most bytes of one `properties` file read. */
const MAX_ENTRIES = 64;
const MAX_PROPERTIES_BYTES = 64 * 1024;
const GIB = 1024 ** 3;

/** A PCI address as the NVIDIA driver names a GPU's directory: `0000:01:00.0`. */
const PCI_ADDRESS = /^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/i;

/** NVIDIA GPUs from the entries of `/proc/driver/nvidia/gpus`: one directory per GPU. */
export function nvidiaGpuCount(entries: readonly string[]): number {
  return entries.slice(0, MAX_ENTRIES).filter((e) => PCI_ADDRESS.test(e)).length;
}

/**
 * ROCm GPUs: with `/dev/kfd` present, the topology nodes whose `properties` text has a
 * non-zero `simd_count` (a CPU node has 0); at least one, since the device exists only with
 * a GPU driver loaded. Without `/dev/kfd`, none.
 */
export function rocmGpuCount(kfd: boolean, nodeProperties: readonly string[]): number {
  if (!kfd) return 0;
  const gpus = nodeProperties.filter((text) => {
    const m = /^simd_count\s+(\d+)\s*$/m.exec(text);
    return m !== null && Number(m[1]) > 0;
  }).length;
  return Math.max(1, gpus);
}

/** Total memory in GB with one decimal. */
export function memoryGb(bytes: number): number {
  return Math.round((bytes / GIB) * 10) / 10;
}

/** The capacity from what was read; pure, for tests. */
export function capacityFrom(facts: {
  vcpus: number;
  memoryBytes: number;
  nvidiaEntries: readonly string[];
  kfd: boolean;
  kfdNodeProperties: readonly string[];
}): HostCapacity {
  const gpus: HostCapacity['gpus'] = [];
  const cuda = nvidiaGpuCount(facts.nvidiaEntries);
  if (cuda > 0) gpus.push({ kind: 'cuda', count: cuda });
  const rocm = rocmGpuCount(facts.kfd, facts.kfdNodeProperties);
  if (rocm > 0) gpus.push({ kind: 'rocm', count: rocm });
  return { vcpus: Math.max(1, facts.vcpus), memory_gb: memoryGb(facts.memoryBytes), gpus };
}

let detected: HostCapacity | undefined;

/** This host's capacity, read once per process. */
export function readHostCapacity(): HostCapacity {
  detected ??= capacityFrom({
    vcpus: availableParallelism(),
    memoryBytes: totalmem(),
    nvidiaEntries: listDir(NVIDIA_GPUS_DIR),
    kfd: existsSync(KFD_DEVICE),
    kfdNodeProperties: existsSync(KFD_DEVICE)
      ? listDir(KFD_NODES_DIR).map((n) => readSmall(`${KFD_NODES_DIR}/${n}/properties`))
      : [],
  });
  return detected;
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir).slice(0, MAX_ENTRIES);
  } catch {
    return [];
  }
}

function readSmall(file: string): string {
  try {
    return readFileSync(file, 'utf8').slice(0, MAX_PROPERTIES_BYTES);
  } catch {
    return '';
  }
}
