import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  callBrain,
  pollBrain,
  startBrainProcess,
  startCalculatorProcess,
  stopProcess,
  type BrainProcess,
} from '../helpers/brain.js';
import type { RunningCli } from '../helpers/cli.js';
import {
  FAKE_HA_TOKEN,
  startFakeHomeAssistant,
  type FakeHomeAssistant,
} from '../helpers/fake-home-assistant.js';
import { startCli } from '../helpers/cli.js';
import { startNats, type TestNats } from '../helpers/nats.js';
import { FUZZ_TIME_MS, fuzzParameters } from './parameters.js';

/**
 * Untrusted HTTP bodies into the gateway: a real brain process with a real calculator behind
 * it, and bodies of every shape sent to each route that reads one. Whatever arrives, the
 * brain answers (no hang), never with a 5xx, and stays up.
 */

const POLICY = `version: 1
allowed_services:
  - light.turn_on
allowed_tools:
  - tool: calculator
    id: calc
`;

const ROUTES = [
  '/v1/tools/calculator/invoke',
  '/v1/tools/call_service/invoke',
  '/v1/chat',
  '/v1/chat/completions',
  '/v1/policy/explain',
  '/v1/confirmations/0123456789abcdef0123456789abcdef',
] as const;

/** Keys the routes know, so generated objects get past the first check now and then. */
const KEYS = [
  'input',
  'expression',
  'message',
  'session_id',
  'stream',
  'model',
  'messages',
  'role',
  'content',
  'tool',
  'approve',
  'domain',
  'service',
  'target',
  'entity_id',
  '__proto__',
  'constructor',
  'prototype',
];

const key = fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 8 }));
const leaf = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('1+1', 'sqrt(-1)', '2^2^2^2^2', 'x'.repeat(2000), 'user', 'assistant'),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);
const { value: structured } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 5 }),
  ),
}));

/** Text that nests `depth` levels, in objects, arrays or both. */
const nestedText = fc
  .record({ depth: fc.integer({ min: 1, max: 6000 }), kind: fc.constantFrom('[', '{', 'mix') })
  .map(({ depth, kind }) => {
    let open = '';
    let close = '';
    for (let i = 0; i < depth; i++) {
      const obj = kind === '{' || (kind === 'mix' && i % 2 === 1);
      open += obj ? '{"a":' : '[';
      close = (obj ? '}' : ']') + close;
    }
    return `${open}1${close}`;
  });

/** A light.turn_on call whose free-form `data` carries whatever was generated. */
const service = fc
  .record({
    data: fc.oneof(
      structured.map((v) => JSON.stringify(v) ?? 'null'),
      nestedText,
    ),
    extra: fc.option(structured, { nil: undefined }),
  })
  .map(({ data, extra }) => {
    const more = extra === undefined ? '' : `,"extra":${JSON.stringify(extra) ?? 'null'}`;
    return `{"input":{"domain":"light","service":"turn_on","target":{"entity_id":"light.kitchen"},"data":${data}${more}}}`;
  });

const body = fc.oneof(
  service,
  structured.map((v) => JSON.stringify(v) ?? 'null'),
  fc.record({ input: structured }).map((v) => JSON.stringify(v)),
  fc.record({ message: fc.string({ maxLength: 200 }) }).map((v) => JSON.stringify(v)),
  nestedText.map((t) => `{"input":${t},"message":"hi"}`),
  fc.string({ maxLength: 300 }),
  fc.tuple(structured, fc.nat()).map(([v, cut]) => (JSON.stringify(v) ?? '').slice(0, cut % 64)),
  fc.constantFrom(
    '{"__proto__":{"admin":true},"message":"hi"}',
    '{"input":{"__proto__":{"expression":"1"},"expression":"2"}}',
    '{"input":{"constructor":{"prototype":{"x":1}}}}',
    '{"message":"\\ud800"}',
    '\uFEFF{"message":"hi"}',
    '',
  ),
);

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
);

describe('fuzz: HTTP bodies into the gateway', () => {
  let nats: TestNats;
  let dir: string;
  let brain: BrainProcess;
  let calculator: RunningCli;
  let callService: RunningCli;
  let ha: FakeHomeAssistant;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'caesar-fuzz-http-'));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    nats = await startNats();
    ha = await startFakeHomeAssistant({
      entities: [
        { entity_id: 'light.kitchen', state: 'off', attributes: { friendly_name: 'Kitchen' } },
      ],
    });
    writeFileSync(join(dir, 'ha-token'), `${FAKE_HA_TOKEN}\n`, { mode: 0o600 });
    calculator = startCalculatorProcess(nats.url);
    callService = startCli(
      ['legion', 'serve-tool', 'call_service', '--nats-url', nats.url, '--log-level', 'warn'],
      // the brain here has no NKEY identity and signs no grants (grants: legion/grants.test.ts)
      {
        CAESAR_HA__URL: ha.url,
        CAESAR_HA__TOKEN_FILE: join(dir, 'ha-token'),
        CAESAR_WORKER__REQUIRE_GRANT: 'false',
      },
    );
    brain = await startBrainProcess({
      natsUrl: nats.url,
      dataDir: join(dir, 'var'),
      policyFile: join(dir, 'policy.yaml'),
      env: { CAESAR_API__RATE_LIMIT: '0' },
    });
    await pollBrain(
      async () => {
        const tools = (await callBrain(brain, 'GET', '/v1/tools')).body as { name: string }[];
        return ['calculator', 'call_service'].every((name) => tools.some?.((t) => t.name === name));
      },
      'the brain to discover the calculator and call_service',
      20_000,
    );
  }, 60_000);

  afterAll(async () => {
    await Promise.all([
      stopProcess(brain?.proc),
      stopProcess(calculator),
      stopProcess(callService),
    ]);
    await ha?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  test(
    'every body gets an answer below 500 and the brain stays up',
    async () => {
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...ROUTES),
          body,
          contentType,
          async (route, text, type) => {
            runs++;
            const res = await fetch(`${brain.url}${route}`, {
              method: 'POST',
              headers: { authorization: `Bearer ${brain.token}`, 'content-type': type },
              body: text,
              signal: AbortSignal.timeout(20_000),
            });
            const answer = await res.text();
            if (res.status >= 500) {
              throw new Error(`${route} answered ${res.status}: ${answer.slice(0, 300)}`);
            }
            if (res.status >= 400 && res.headers.get('content-type')?.includes('json')) {
              const parsed = JSON.parse(answer) as { error?: { code?: unknown } };
              expect(typeof parsed.error?.code).toBe('string');
            }
          },
        ),
        fuzzParameters({ numRuns: 400 }),
      );
      expect(runs).toBeGreaterThanOrEqual(25);
      expect(brain.proc.child.exitCode).toBeNull();
      expect(calculator.child.exitCode).toBeNull();
      expect(callService.child.exitCode).toBeNull();
      expect((await callBrain(brain, 'GET', '/healthz')).status).toBe(200);
      // The worker behind it survived too: a plain call still works.
      const ok = await callBrain(brain, 'POST', '/v1/tools/calculator/invoke', {
        input: { expression: '6*7' },
      });
      expect(ok.status).toBe(200);
    },
    FUZZ_TIME_MS + 60_000,
  );
});
