export { Agent } from './agent.js';
// the brain's own answers and the setup steps `GET /v1/capabilities` lists (ADR 0074)
export { CLOCK_CAPABILITY, modelSteps } from './replies.js';
export type {
  Capability,
  CapabilityReport,
  MissingCapability,
  PlanAttempt,
  PlanRound,
  PlannerTool,
  ToolStep,
} from './ports.js';
