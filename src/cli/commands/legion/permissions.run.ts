import { brainPermissions, workerPermissions } from '../../../protocol/index.js';
import { terminal } from '../../program/terminal.js';

/** `caesar legion permissions`'s flags. */
export interface PermissionsFlags {
  brain?: string | true;
}

/**
 * Prints the permissions of a worker host serving `tools`, or of the brain (`--brain`): one
 * object, in JSON (which nats-server's config syntax accepts), to paste after `permissions:`
 * in the user's block (docs/operations.md).
 */
export function printPermissions(tools: readonly string[], flags: PermissionsFlags): void {
  if (flags.brain !== undefined) {
    if (tools.length > 0) throw new Error('give either tool names or --brain, not both');
    const identity = flags.brain === true ? 'brain' : flags.brain;
    terminal.out(JSON.stringify(brainPermissions(identity), null, 2));
    return;
  }
  if (tools.length === 0) throw new Error('name the tools this host serves, or pass --brain');
  terminal.out(JSON.stringify(workerPermissions(tools), null, 2));
}
