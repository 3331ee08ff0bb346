import type { Command } from 'commander';
import { done } from '../../program/exit.js';
import { withPolicyFlags } from './flags.js';
import type { ExplainOptions } from './explain.run.js';

/** Adds `caesar policy explain`; `explain.run.ts` loads when it runs. */
export function addExplain(group: Command): void {
  withPolicyFlags(
    group
      .command('explain')
      .description('show what the policy decides for a call: the rule, the reason, obligations')
      .argument('<name>', 'tool id (calculator) or Home Assistant service (light.turn_on)')
      .argument(
        '[json]',
        'tool input, or {target, data} for a service, as JSON (YAML flow works too)',
      )
      .option('--target <json>', 'service target, e.g. \'{"entity_id": "light.kitchen"}\'')
      .option('--data <json>', 'service data, e.g. \'{"brightness_pct": 50}\'')
      .option('--confirmed', 'evaluate as if a human approved the call')
      .option(
        '--principal <name>',
        "as this caller's principal (a token's `principal:`), for rules that name principals or groups",
      )
      .option(
        '--group <group>',
        "a group of that principal (repeat for more): the tokens file's groups are not read",
        (group: string, groups: string[] = []) => [...groups, group],
      )
      .option('--after-untrusted', "as a model's call after its turn read untrusted content")
      .option('--after-private', "as a model's call after its turn read private data")
      .option('--changes-state', 'the tool changes state (its spec: readOnly false or destructive)')
      .option('--open-world', 'the tool reaches outside (its spec: openWorld true)')
      .option(
        '--no-shared-words',
        'the input shares no word with the private data read (flow.private_match: shared_words)',
      ),
  ).action(async (name: string, input: string | undefined, opts: ExplainOptions) => {
    const { runPolicyExplain } = await import('./explain.run.js');
    done(await runPolicyExplain(name, input, opts));
  });
}
