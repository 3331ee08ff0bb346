export { Agent } from './agent.js';
export type { AgentChatOptions, AgentOptions } from './agent.js';
export { PlannerUnavailableError } from './errors.js';
export type {
  CallGate,
  ConversationTurn,
  Conversations,
  IntentHit,
  IntentMatcher,
  IntentOutcome,
  PlanAttempt,
  PlanRequest,
  PlanRound,
  PlannedCall,
  PlanStep,
  Planner,
  PlannerTool,
  ToolTurnRecord,
} from './ports.js';
export { capReply, offlineReply, pausedReply, unavailableReply } from './replies.js';
