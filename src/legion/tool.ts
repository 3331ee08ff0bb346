import type { z } from 'zod';
import { defineActionTool, type ActionToolDefinition, type ActionToolInput } from './actions.js';
import { defineCallable, type ToolDefinition, type ToolDefinitionInput } from './define.js';

/**
 * Declares a tool once: a one-action tool (`input`, `output`, `annotations`, `handler`), or
 * a tool with several named actions (`actions: { name: action({...}) }`, ADR 0092), each a
 * callable `tool.action` of its own. Throws `ToolDefinitionError` naming every field at fault.
 */
export function defineTool<
  I extends z.ZodType,
  O extends z.ZodType,
  C extends z.ZodType = z.ZodUnknown,
>(def: ToolDefinitionInput<I, O, C>): ToolDefinition<I, O, C>;
export function defineTool<C extends z.ZodType = z.ZodUnknown>(
  def: ActionToolInput<C>,
): ActionToolDefinition;
export function defineTool(
  def: ToolDefinitionInput<z.ZodType, z.ZodType, z.ZodType> | ActionToolInput<z.ZodType>,
): ToolDefinition | ActionToolDefinition {
  return 'actions' in def && def.actions !== undefined
    ? defineActionTool(def)
    : defineCallable(def as ToolDefinitionInput<z.ZodType, z.ZodType, z.ZodType>);
}
