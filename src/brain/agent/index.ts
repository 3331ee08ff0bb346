export { Agent } from './agent.js';
export type { AgentOptions } from './agent.js';
export type {
  CallGate,
  ConversationTurn,
  Conversations,
  IntentHit,
  IntentMatcher,
  IntentOutcome,
  PlanRequest,
  PlanStep,
  Planner,
  PlannerTool,
  ToolTurnRecord,
} from './ports.js';
export { capReply, offlineReply } from './replies.js';
