export { Agent } from './agent.js';
export type {
  CapabilityReport,
  MissingCapability,
  PlanAttempt,
  PlanRound,
  PlannerTool,
  ToolStep,
} from './ports.js';
