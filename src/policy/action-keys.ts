import { actionName } from '../protocol/index.js';

/**
 * The ids a tool rule applies to: its tool (and so every action of it), or with `actions:`
 * each listed action's full name `tool.action` (ADR 0092).
 */
export function actionKeys(spec: { readonly tool: string; readonly actions?: readonly string[] }) {
  return spec.actions === undefined
    ? [spec.tool]
    : spec.actions.map((a) => actionName(spec.tool, a));
}
