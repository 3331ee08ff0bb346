import { describe, expect, test } from 'vitest';
import { PreflightBoard } from '../../../../src/cli/stack/preflight.js';
import type { PreflightReply, ResourceRequirements } from '../../../../src/protocol/index.js';

// Issue 31 (ADR 0091): `caesar up` hears its workers' preflight over IPC and says what the
// brain will say: the operator's `tools.limits` warnings after the worker's own.

function replyOf(
  tool: string,
  req: Partial<ResourceRequirements> = {},
  warnings: string[] = [],
): PreflightReply {
  return {
    v: 1,
    tool,
    ok: true,
    warnings,
    checks: [],
    execution_locality: 'local',
    resource_requirements: { cpu: 'low', memory_mb: 256, network: false, ...req },
    worker: { id: 'i1', host: 'pi4' },
  };
}

describe('PreflightBoard', () => {
  test('a tool within the limits is ready, its reply kept as the worker sent it', async () => {
    const board = new PreflightBoard({ allowGpu: true, maxVcpus: 8, maxMemoryGb: 16 });
    const reply = replyOf('calculator', { min_vcpus: 2 });
    expect(board.report([reply])).toEqual([reply]);
    expect(await board.lines(['calculator'], 30_000)).toEqual(['calculator: ready']);
  });

  test("a requirement beyond tools.limits warns after the worker's own warnings", async () => {
    const board = new PreflightBoard({ allowGpu: false, maxMemoryGb: 0.2 });
    const host = 'min_vcpus: the tool asks for 1024 vCPUs; this host has 4';
    const reply = replyOf('big_render', { gpu: { required: true } }, [host]);
    const [kept] = board.report([reply]);
    expect(kept!.warnings).toEqual([
      host,
      'memory_mb: the tool asks for 0.3 GB of memory; tools.limits.max_memory_gb is 0.2',
      'gpu.required: the tool needs a GPU; tools.limits.allow_gpu is false',
    ]);
    expect(await board.lines(['big_render'], 30_000)).toEqual([
      `big_render: ready, warns: ${kept!.warnings.join('; ')}`,
    ]);
  });

  test('no limit set: a tool that asks for much is still ready without a warning', async () => {
    const board = new PreflightBoard({ allowGpu: true });
    board.report([replyOf('big_render', { min_vcpus: 1024, gpu: { required: true } })]);
    expect(await board.lines(['big_render'], 30_000)).toEqual(['big_render: ready']);
  });

  test('a later report replaces an earlier one, the limits applied again', async () => {
    const board = new PreflightBoard({ allowGpu: true, maxVcpus: 8 });
    board.report([replyOf('calculator', { min_vcpus: 16 })]);
    board.report([replyOf('calculator', { min_vcpus: 4 })]);
    expect(await board.lines(['calculator'], 30_000)).toEqual(['calculator: ready']);
  });

  test('a tool that never reports says so once the wait is over', async () => {
    const board = new PreflightBoard({ allowGpu: true });
    expect(await board.lines(['web_search'], 10)).toEqual([
      'web_search: preflight failed: error: no answer within 0.01 s',
    ]);
  });
});
