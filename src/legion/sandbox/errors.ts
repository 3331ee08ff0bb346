import { errorClass } from '../../errors/index.js';

/**
 * The errors a sandboxed call ends with when a limit is hit or the sandbox cannot start
 * (ADR 0097), generated from the catalogue (ADR 0087). Each names the program.
 */
export const SandboxUnavailableError = errorClass('sandbox_unavailable');
export type SandboxUnavailableError = InstanceType<typeof SandboxUnavailableError>;
export const SandboxTimeLimitError = errorClass('sandbox_time_limit');
export type SandboxTimeLimitError = InstanceType<typeof SandboxTimeLimitError>;
export const SandboxCpuLimitError = errorClass('sandbox_cpu_limit');
export type SandboxCpuLimitError = InstanceType<typeof SandboxCpuLimitError>;
export const SandboxMemoryLimitError = errorClass('sandbox_memory_limit');
export type SandboxMemoryLimitError = InstanceType<typeof SandboxMemoryLimitError>;
export const SandboxOutputLimitError = errorClass('sandbox_output_limit');
export type SandboxOutputLimitError = InstanceType<typeof SandboxOutputLimitError>;
