export { Agent } from './agent.js';
export { CLIENT_KEPT_LEDGER, isClientKept } from './client-kept.js';
// the brain's own answers and the setup steps `GET /v1/capabilities` lists (ADR 0074)
export { CLOCK_CAPABILITY, modelSteps } from './replies.js';
// what the brain's own planner actions (check_preconditions) answer with, as the loop does
export { unknownToolReport } from './turn-calls.js';
export { unmadeCall } from './rounds.js';
export type {
  CallGate,
  Capability,
  CapabilityReport,
  JobEndReports,
  MissingCapability,
  PlanAttempt,
  PlanRound,
  PlannerTool,
  SessionRef,
  ToolStep,
  ToolTurnRecord,
} from './ports.js';
