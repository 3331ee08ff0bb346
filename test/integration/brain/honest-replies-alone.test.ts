import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  callBrain,
  pollBrain,
  startBrainProcess,
  startCalculatorProcess,
  stopProcess,
  type BrainProcess,
} from '../../helpers/brain.js';
import { runCli, startCli, type RunningCli } from '../../helpers/cli.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { commandOf, section } from '../../helpers/replies.js';
import { waitFor } from '../../helpers/wait.js';

// Issue 15, scope 1 (asked with `/help setup` since issue 29): a brain run alone (`caesar brain`, joined to a NATS server of the
// operator's) names the command that starts a missing tool against it, not `caesar up`'s.

describe('what can you do, asked of a caesar brain run alone with only the calculator', () => {
  let nats: TestNats;
  let dir: string;
  let brain: BrainProcess | undefined;
  let calculator: RunningCli | undefined;
  let started: RunningCli | undefined;

  beforeAll(async () => {
    nats = await startNats();
    dir = mkdtempSync(join(tmpdir(), 'caesar-replies-alone-'));
    const policyFile = join(dir, 'policy.yaml');
    writeFileSync(policyFile, 'version: 1\nallowed_tools:\n  - calculator\n  - web_search\n');
    calculator = startCalculatorProcess(nats.url);
    brain = await startBrainProcess({ natsUrl: nats.url, dataDir: dir, policyFile });
    await pollBrain(
      async () =>
        ((await callBrain(brain!, 'GET', '/v1/tools')).body as { name: string }[]).some?.(
          (t) => t.name === 'calculator',
        ),
      'the brain to discover the calculator',
      30_000,
    );
  }, 60_000);

  afterAll(async () => {
    await stopProcess(started);
    await stopProcess(brain?.proc);
    await stopProcess(calculator);
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const ask = async () => {
    const r = await runCli(['chat', '/help', 'setup', '--data-dir', dir]);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout;
  };

  test('the start command it names serves the tool to this brain, and then the key to set', async () => {
    const reply = await ask();
    expect(section(reply, 'Working now:')).toEqual([
      "- tell the time and date (e.g. 'what time is it')",
      "- do arithmetic and unit conversions (e.g. 'what is 17 * 23')",
    ]);
    // this brain has no NKEY identity and signs no grants: the worker must not require them
    expect(reply).toContain(
      "- search the web (e.g. 'search for the ISS orbit height'): web_search is not running; " +
        `start it: \`CAESAR_WORKER__REQUIRE_GRANT=false caesar legion serve-tool web_search --data-dir ${dir}\``,
    );
    expect(reply).toContain('then restart `caesar brain`');
    const { args, env } = commandOf(reply, 'search the web');
    started = startCli(args, env);
    const line = await waitFor(
      async () => {
        const found = section(await ask(), 'Not available yet:').find((l) =>
          l.startsWith('- search the web'),
        );
        return found?.includes('is not running') === false ? found : undefined;
      },
      'web_search to reach the brain',
      30_000,
      500,
    );
    expect(line).toContain(
      'web_search is not configured; set CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL (tools.web_search.searxng_url)',
    );
    expect(line).toContain('then restart the web_search worker');
  }, 60_000);
});
