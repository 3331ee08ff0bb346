import {
  defineTool,
  HA_CALL_SERVICE,
  HA_ENTITIES,
  HOME_ASSISTANT_TOOL,
} from '../../src/legion/index.js';
import { haToolParts, HaSessions } from '../../src/clients/home-assistant/index.js';
import { callServiceAction, type CallServiceToolOptions } from '../call_service/tool.js';
import { DEFAULT_SETTLE } from '../call_service/verify.js';
import { entitiesAction } from '../ha_entities/tool.js';

/**
 * Builds the `home_assistant` tool (ADR 0093): one tool, one config section, one connection
 * to Home Assistant, two actions: `home_assistant.entities` finds entity ids,
 * `home_assistant.call_service` switches devices with them. The options exist for tests
 * (cache lifetimes, settling).
 */
export function createHomeAssistantTool(options: CallServiceToolOptions = {}) {
  const sessions = new HaSessions(options);
  return defineTool({
    name: HOME_ASSISTANT_TOOL,
    version: '1.0.0',
    title: 'Home Assistant',
    description: "Finds and controls the devices of the operator's Home Assistant.",
    ...haToolParts(sessions, { registry: true }),
    resourceRequirements: { cpu: 'low', memory_mb: 128, network: true },
    maxConcurrency: 8,
    maxQueue: 64,
    actions: {
      entities: entitiesAction(sessions, HA_CALL_SERVICE),
      call_service: callServiceAction(sessions, options.settle ?? DEFAULT_SETTLE, HA_ENTITIES),
    },
  });
}

export const homeAssistantTool = createHomeAssistantTool();
