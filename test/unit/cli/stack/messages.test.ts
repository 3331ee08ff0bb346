import { describe, expect, test } from 'vitest';
import {
  parseChildMessage,
  type BrainReady,
  type ChildMessage,
  type WorkerPreflight,
  type WorkerReady,
} from '../../../../src/cli/stack/messages.js';

const brainReady: BrainReady = {
  type: 'brain_ready',
  url: 'http://127.0.0.1:8420',
  nats_url: 'nats://127.0.0.1:4222',
  tokens_file: '/srv/var/api-tokens.yaml',
  created_tokens_file: true,
  audit_db: '/srv/var/audit.db',
  policy_file: '/srv/policy/policy.yaml',
};

const workerReady: WorkerReady = {
  type: 'worker_ready',
  instances: [{ tool: 'calculator', id: 'abc123', host: 'pi4' }],
};

const workerPreflight: WorkerPreflight = {
  type: 'worker_preflight',
  replies: [
    {
      v: 1,
      tool: 'web_search',
      ok: false,
      warnings: [],
      checks: [
        { name: 'configured', ok: false, detail: 'set CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL' },
      ],
      execution_locality: 'remote_api',
      resource_requirements: { cpu: 'low', memory_mb: 64, network: true },
      worker: { id: 'abc123', host: 'pi4' },
    },
  ],
};

describe('messages from the children of caesar up', () => {
  test.each([
    ['the brain is ready', brainReady],
    ['a worker is ready', workerReady],
    ["a worker's preflight", workerPreflight],
    ['a child cannot start', { type: 'fatal', message: 'policy.yaml:3:5: unknown key' }],
  ] as [string, ChildMessage][])('%s: parsed as sent', (_name, message) => {
    expect(parseChildMessage(message)).toEqual({ ok: true, message });
  });

  test.each([
    ['not an object', 'ready', /\(root\)/],
    ['null', null, /\(root\)/],
    ['no type', { url: brainReady.url }, /type: /],
    ['an unknown type (the untyped `ready` of old)', { ...brainReady, type: 'ready' }, /type: /],
    [
      'a brain URL that is not http(s)',
      { ...brainReady, url: 'nats://x:1' },
      /^url: expected an http\(s\) URL$/,
    ],
    ['a brain without its audit db', { ...brainReady, audit_db: undefined }, /^audit_db: /],
    [
      'created_tokens_file as text',
      { ...brainReady, created_tokens_file: 'yes' },
      /^created_tokens_file: /,
    ],
    [
      'a worker with no instance',
      { ...workerReady, instances: [] },
      /^instances: expected at least one instance$/,
    ],
    [
      'an instance without an id',
      { type: 'worker_ready', instances: [{ tool: 'calculator', host: 'h' }] },
      /^instances\[0\]\.id: /,
    ],
    ['a fatal without a message', { type: 'fatal' }, /^message: /],
    [
      'a preflight with no reply',
      { ...workerPreflight, replies: [] },
      /^replies: expected at least one reply$/,
    ],
    [
      'a preflight reply without its tool',
      { ...workerPreflight, replies: [{ ...workerPreflight.replies[0], tool: undefined }] },
      /^replies\[0\]\.tool: /,
    ],
    ['a field neither side knows', { ...workerReady, pid: 7 }, /pid/],
  ])('%s is refused, naming the field at fault', (_name, raw, problem) => {
    const parsed = parseChildMessage(raw);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toMatch(problem);
  });
});
