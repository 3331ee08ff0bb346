export { Agent } from './agent.js';
export type { PlanAttempt, PlanRound, PlannerTool } from './ports.js';
