import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  callBrain,
  startBrainProcess,
  stopProcess,
  type BrainProcess,
} from '../../helpers/brain.js';
import { startFakeOpenAi, type FakeLlm } from '../../helpers/fake-llm.js';
import { startNats, type TestNats } from '../../helpers/nats.js';

// Issue 29, point 8: nothing at start confirmed the LLM configuration. A hand-run `caesar
// brain` now says which model it asks and what the endpoint's model list says of it, in its
// terminal lines and its log; under `caesar up` the same lines reach the up terminal through
// brain_ready (test/unit/cli/ready-line.test.ts).

const KEY = 'sk-test-brain-model-0123456789';

describe('a hand-run brain names its model and checks it at start', () => {
  let nats: TestNats;
  let model: FakeLlm;
  let dir: string;
  let policyFile: string;
  const brains: BrainProcess[] = [];

  beforeAll(async () => {
    nats = await startNats();
    model = await startFakeOpenAi({ key: KEY, models: ['gpt-4o-mini', 'gpt-test'] });
    dir = mkdtempSync(join(tmpdir(), 'caesar-brain-model-'));
    policyFile = join(dir, 'policy.yaml');
    writeFileSync(policyFile, 'version: 1\nallowed_tools:\n  - calculator\n');
  });

  afterAll(async () => {
    await Promise.all(brains.map((b) => stopProcess(b.proc)));
    await model?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (name: string, env: NodeJS.ProcessEnv, policy = policyFile) => {
    const brain = await startBrainProcess({
      natsUrl: nats.url,
      dataDir: join(dir, name),
      policyFile: policy,
      env,
    });
    brains.push(brain);
    return brain;
  };
  const openai = (modelName: string) => ({
    CAESAR_LLM__PROVIDER: 'openai',
    CAESAR_LLM__MODEL: modelName,
    CAESAR_LLM__OPENAI__BASE_URL: `${model.url}/v1`,
    CAESAR_LLM__OPENAI__API_KEY: KEY,
  });

  test('a listed model: its provider and model, and ok', async () => {
    const brain = await start('ok', openai('gpt-test'));
    const line = await brain.proc.waitForLine(/^llm openai /, 10_000);
    expect(line).toBe(
      `llm openai 'gpt-test' at 127.0.0.1:${model.port}: ok: the server lists it (1 of 2)`,
    );
    expect(brain.proc.lines).toContain('model: openai gpt-test');
  }, 60_000);

  test('a model the server does not list: the nearest, on the terminal and as a warn log line', async () => {
    const brain = await start('missing', openai('gpt-4o'));
    const line = await brain.proc.waitForLine(/^llm openai /, 10_000);
    expect(line).toContain(
      "problem: model 'gpt-4o' not among the 2 the server lists: did you mean 'gpt-4o-mini'?",
    );
    // --log-level warn: the check's problem is logged; the key never is
    expect(brain.proc.stderr()).toContain("did you mean 'gpt-4o-mini'?");
    expect(`${brain.proc.lines.join('\n')}${brain.proc.stderr()}`).not.toContain(KEY);
    // /readyz (the dashboard's status panel): still ready, the model named, the problem a warning
    const ready = await callBrain(brain, 'GET', '/readyz');
    expect(ready.body).toMatchObject({
      ready: true,
      checks: { llm: { ok: true, detail: 'model: openai gpt-4o', warning: line } },
    });
  }, 60_000);

  test('no llm section: no model, the local rules only, and nothing to check', async () => {
    const brain = await start('none', {});
    await brain.proc.waitForLine(/^no model: local rules only$/, 10_000);
    expect(brain.proc.lines.some((l) => l.startsWith('llm '))).toBe(false);
  }, 60_000);

  // point 7 on the terminal at start (policy-status.test.ts has it after a reload)
  test('a policy naming a tool no one knows: one warning line at start, with the closest', async () => {
    const misspelt = join(dir, 'misspelt.yaml');
    writeFileSync(misspelt, 'version: 1\nallowed_tools:\n  - tool: calculater\n');
    const brain = await start('misspelt', {}, misspelt);
    await brain.proc.waitForLine(/^no model: /, 10_000);
    expect(brain.proc.stderr()).toContain(
      "policy: warning: allowed_tools[0].tool 'calculater' is served by no worker and listed in " +
        `no catalog; did you mean 'calculator'? (${misspelt}:3:11)`,
    );
  }, 60_000);
});
