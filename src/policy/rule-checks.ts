import type { z } from 'zod';
import {
  ConstraintSchema,
  CONSTRAINT_OPERATORS,
  type ConstraintSpec,
} from './constraint-schema.js';
import { TOOL_MATCHERS, toolsWithTypedKey, typedKeyOf } from './matchers/registry.js';
import { ACTION_SEPARATOR, forwardIssues } from '../protocol/index.js';
import { isRecord } from '../text/index.js';
import { HA_CALL_SERVICE, HOME_ASSISTANT_TOOL, isServiceCallTool } from '../protocol/index.js';
import { closest } from '../text/index.js';

/**
 * Checks of a rule that depend on more than one of its keys (the tool decides what its `input:`
 * may hold) or on which list it sits in. They run inside the rule's schema, so their issues are
 * reported with every other problem of the file, and even when another key of the same rule is
 * wrong.
 */

type Ctx = z.core.$RefinementCtx;
type ToolList = 'allowed_tools' | 'denied_tools';

/** Adds an issue at `path`; `key` points it at that map key rather than its value. */
function report(ctx: Ctx, path: PropertyKey[], message: string, key?: string): void {
  ctx.addIssue({
    code: 'custom',
    path,
    message,
    ...(key === undefined ? {} : { params: { key } }),
  });
}

/** `required` and `forbidden` only make sense when proving a call is inside an allow rule. */
export function refuseAllowOnlyOperators(
  ctx: Ctx,
  path: PropertyKey[],
  specs: Readonly<Record<string, ConstraintSpec>>,
): void {
  for (const [key, spec] of Object.entries(specs)) {
    for (const op of ['required', 'forbidden'] as const) {
      if (spec[op] !== undefined) {
        report(
          ctx,
          [...path, key, op],
          `${op} is for allow rules; a deny rule matches present keys only`,
        );
      }
    }
    if (spec.fields) refuseAllowOnlyOperators(ctx, [...path, key, 'fields'], spec.fields);
  }
}

/** The rule-level checks of `allowed_tools` and `denied_tools` entries. */
export function checkToolRule(list: ToolList, rule: unknown, ctx: Ctx): void {
  if (!isRecord(rule) || typeof rule.tool !== 'string') return;
  const { tool, input } = rule;
  if (rule.actions !== undefined && tool.includes(ACTION_SEPARATOR)) {
    const base = tool.slice(0, tool.indexOf(ACTION_SEPARATOR));
    report(
      ctx,
      ['actions'],
      `'${tool}' names one action already; write tool: ${base} with actions, or the full name alone`,
    );
  }
  const actions = Array.isArray(rule.actions) ? (rule.actions as unknown[]) : undefined;
  if (
    tool === HOME_ASSISTANT_TOOL &&
    list === 'allowed_tools' &&
    actions?.includes('call_service')
  ) {
    report(
      ctx,
      ['actions'],
      `${HA_CALL_SERVICE} is governed by allowed_services: list the services there`,
    );
    return;
  }
  if (isServiceCallTool(tool)) {
    if (list === 'allowed_tools') {
      report(ctx, ['tool'], `${tool} is governed by allowed_services: list the services there`);
    } else if (input !== undefined) {
      report(
        ctx,
        ['input'],
        `constrain service calls with denied_services; a bare ${tool} entry denies them all`,
      );
    }
    return;
  }
  if (!isRecord(input)) return;
  for (const [key, value] of Object.entries(input)) checkInputKey(list, tool, key, value, ctx);
}

function checkInputKey(list: ToolList, tool: string, key: string, value: unknown, ctx: Ctx): void {
  const at = ['input', key];
  const matcher = TOOL_MATCHERS.get(tool);
  const typed = typedKeyOf(tool, key);
  if (typed !== undefined) {
    if (list === 'denied_tools') {
      report(
        ctx,
        at,
        `${key} is a ${tool} setting for allow rules; a deny rule constrains input fields`,
      );
      return;
    }
    const parsed = typed.schema.safeParse(value);
    if (!parsed.success) forwardIssues(ctx, parsed.error, at);
    return;
  }
  const owners = toolsWithTypedKey(key);
  if (matcher !== undefined && !matcher.fields.includes(key)) {
    if (owners.length > 0) {
      report(
        ctx,
        ['input'],
        `${key} applies only to ${owners.join(', ')}; ${tool} takes ${describe(tool)}`,
        key,
      );
      return;
    }
    const known = [...Object.keys(matcher.keys), ...matcher.fields];
    const hint = closest(key, known);
    const more = hint === undefined ? '' : ` (did you mean '${hint}'?)`;
    report(
      ctx,
      ['input'],
      `unknown key '${key}' for ${tool}${more}; ${tool} takes ${describe(tool)}`,
      key,
    );
    return;
  }
  if (matcher === undefined) {
    if (owners.length > 0) {
      report(ctx, ['input'], `${key} applies only to ${owners.join(', ')}`, key);
      return;
    }
    if (CONSTRAINT_OPERATORS.has(key) && !isRecord(value)) {
      report(
        ctx,
        at,
        `${key} is a constraint operator, not an input field: write <field>: {${key}: ...}`,
      );
      return;
    }
  }
  const parsed = ConstraintSchema.safeParse(value);
  if (!parsed.success) forwardIssues(ctx, parsed.error, at);
  else if (list === 'denied_tools')
    refuseAllowOnlyOperators(ctx, ['input'], { [key]: parsed.data });
}

function describe(tool: string): string {
  const m = TOOL_MATCHERS.get(tool);
  if (m === undefined) return '';
  const keys = Object.keys(m.keys).join(', ');
  return `the settings ${keys} and constraints on its input fields ${m.fields.join(', ')}`;
}
