import { describe, expect, test } from 'vitest';
import {
  brainRestart,
  restartStep,
  startStep,
  type WorkerLaunch,
} from '../../../../src/brain/capabilities/worker-launch.js';

const SHIPPED = ['calculator', 'web_search'];
const embedded: WorkerLaunch = {
  shipped: SHIPPED,
  embedded: true,
  dataDir: '/srv/caesar/var',
  busAuth: true,
};
const alone: WorkerLaunch = {
  shipped: SHIPPED,
  embedded: false,
  dataDir: '/srv/caesar/var',
  busAuth: false,
};

describe('the step that starts a tool no worker serves', () => {
  test.each<[string, WorkerLaunch, string, string]>([
    [
      'caesar up: join the stack through its data dir',
      embedded,
      'web_search',
      'start it: `caesar legion serve-tool web_search --data-dir /srv/caesar/var`',
    ],
    [
      'caesar up with --config: the worker reads the same file',
      { ...embedded, configFile: '/srv/caesar/caesar.yaml' },
      'web_search',
      'start it: `caesar legion serve-tool web_search --data-dir /srv/caesar/var --config /srv/caesar/caesar.yaml`',
    ],
    [
      'a path with a space or a quote is quoted for the shell',
      { ...embedded, dataDir: "/home/me/my caesar's/var" },
      'calculator',
      "start it: `caesar legion serve-tool calculator --data-dir '/home/me/my caesar'\\''s/var'`",
    ],
    [
      'caesar brain alone that signs grants: the worker trusts it through runtime.json',
      { ...alone, grantKey: 'UBRAINKEY' },
      'web_search',
      'start it: `caesar legion serve-tool web_search --data-dir /srv/caesar/var`',
    ],
    [
      'caesar brain alone that signs none: the worker must not require them',
      alone,
      'web_search',
      'start it: `CAESAR_WORKER__REQUIRE_GRANT=false caesar legion serve-tool web_search --data-dir /srv/caesar/var`',
    ],
    [
      'caesar brain alone on a NATS that needs identities: the worker needs its own',
      { ...alone, busAuth: true, grantKey: 'UBRAINKEY' },
      'web_search',
      'start it: `caesar legion serve-tool web_search --data-dir /srv/caesar/var --nkey-seed-file <its identity> --trusted-brain UBRAINKEY` ' +
        'with an identity from `caesar legion identity new <name> --tools web_search` (docs/operations.md)',
    ],
    [
      'a tool no build ships: no made-up serve-tool command',
      embedded,
      'weather',
      'start the worker that serves weather (it is not a shipped tool; docs/legion.md)',
    ],
  ])('%s', (_, launch, tool, step) => {
    expect(startStep(launch, tool)).toBe(step);
  });

  test('what reads a changed setting: caesar up, or the worker and the brain run alone', () => {
    expect(restartStep(embedded, 'web_search')).toBe('restart `caesar up`');
    expect(restartStep(alone, 'web_search')).toBe('restart the web_search worker');
    expect(brainRestart(embedded)).toBe('restart `caesar up`');
    expect(brainRestart(alone)).toBe('restart `caesar brain`');
  });
});
