import { action, CALL_SERVICE_TOOL, defineTool, type ToolContext } from '../../src/legion/index.js';
import {
  haToolParts,
  HaSessions,
  type HaConfig,
  type HaConnection,
  type HaSessionOptions,
  type ResponseMode,
} from '../../src/clients/home-assistant/index.js';
import { askForResponse, findService, invokeService } from './invoke.js';
import {
  CallServiceInputSchema,
  CallServiceResultSchema,
  MAX_VERIFIED_ENTITIES,
  type CallServiceInput,
  type CallServiceResult,
} from './schema.js';
import { summarise } from './summary.js';
import { describeTargets, prepareCall } from './targets.js';
import {
  DEFAULT_SETTLE,
  observeAfter,
  readBefore,
  reportedOnly,
  type SettleOptions,
} from './verify.js';

/** What a model reads of the call; `lookup` is the callable that finds entity ids. */
const description = (lookup: string) =>
  [
    'Calls a Home Assistant service (an action) to control a device: turn lights, switches and fans on or off,',
    'set brightness, lock or unlock, open covers, run scripts and scenes.',
    'Input: domain and service (like "light" and "turn_on"), target (entity_id, device_id, area_id, floor_id or',
    'label_id: one id or a list), optional data (the service fields, like {"brightness_pct": 40}) and',
    'return_response for services that can return data.',
    'Example: {"domain": "light", "service": "turn_on", "target": {"entity_id": "light.kitchen"}, "data": {"brightness_pct": 40}}.',
    `Use entity ids from ${lookup}; never guess them. The result says what really happened: each targeted entity with its state`,
    'before and after, whether it changed, and a one-sentence summary ("Kitchen Light: off -> on.",',
    '"Kitchen Light stayed off.", "Kitchen Light was already on."). Tell the user the summary; never claim an',
    'action the result does not show. verified is false when targets were areas, devices or labels.',
    'Refuses (invalid_input) unknown services (naming the closest), unknown entities, and data Home Assistant rejects.',
  ].join(' ');

export interface CallServiceToolOptions extends HaSessionOptions {
  /** Waiting for devices that report late. @default DEFAULT_SETTLE */
  settle?: SettleOptions;
}

/**
 * The service call as an action over `sessions`: the `call_service` tool's, and the
 * `home_assistant` tool's `call_service` action (ADR 0093). `lookup` names the entity lookup
 * beside it, for the description.
 */
export function callServiceAction(sessions: HaSessions, settle: SettleOptions, lookup: string) {
  return action({
    description: description(lookup),
    capabilities: ['switch_devices', 'set_device_levels', 'run_scenes_and_scripts'],
    input: CallServiceInputSchema,
    output: CallServiceResultSchema,
    annotations: { readOnly: false, openWorld: true },
    timeoutMs: 15_000,
    handler: (input: CallServiceInput, ctx: ToolContext<HaConfig>) =>
      callService(sessions.get(ctx.config).require(), input, ctx, settle),
  });
}

/**
 * Builds a `call_service` tool (kept for one release beside `home_assistant.call_service`,
 * ADR 0093); the options exist for tests (cache lifetimes, settling).
 */
export function createCallServiceTool(options: CallServiceToolOptions = {}) {
  const sessions = new HaSessions(options);
  return defineTool({
    ...callServiceAction(sessions, options.settle ?? DEFAULT_SETTLE, 'ha_entities'),
    name: CALL_SERVICE_TOOL,
    version: '1.0.0',
    title: 'Home Assistant service call',
    ...haToolParts(sessions),
    resourceRequirements: { cpu: 'low', memory_mb: 64, network: true },
    maxConcurrency: 4,
    maxQueue: 32,
  });
}

/**
 * One call: look the service up, read the targets, call, read them back (waiting within the
 * settle window for late reports), and say what happened.
 */
async function callService(
  conn: HaConnection,
  input: CallServiceInput,
  ctx: ToolContext<HaConfig>,
  settle: SettleOptions,
): Promise<CallServiceResult> {
  const call = prepareCall(input);
  const clock = { signal: ctx.signal, deadline: ctx.deadline };
  const info = await findService(conn, call, ctx.signal);
  const ask = askForResponse(info, input.return_response);
  const checkable = call.entitiesOnly && call.entityIds.length <= MAX_VERIFIED_ENTITIES;
  const before = await readBefore(conn, call, clock);
  const outcome = await invokeService(conn, call, ask, input.return_response, ctx.signal);
  ctx.logger.debug(
    { service: call.key, reported: outcome.changed.length },
    'home assistant service called',
  );
  const { observed, allRead } =
    before.size > 0
      ? await observeAfter(conn, call, before, outcome, clock, settleFor(info.response, settle))
      : { observed: reportedOnly(outcome), allRead: false };
  const verified = checkable && allRead;
  const entities = observed.map(({ expected: _expected, ...e }) => e);
  return {
    service: call.key,
    changed: entities.some((e) => e.changed),
    verified,
    summary: summarise(call.key, observed, { targets: describeTargets(call), verified }),
    entities,
    ...(outcome.response === undefined ? {} : { response: outcome.response }),
  };
}

/** A service that only answers (a query, like weather.get_forecasts) is not waited on. */
function settleFor(mode: ResponseMode, settle: SettleOptions): SettleOptions {
  return mode === 'only' ? { ...settle, settleMs: 0 } : settle;
}

/** The shipped `call_service` tool (`caesar legion serve-tool call_service`). */
export const callServiceTool = createCallServiceTool();
