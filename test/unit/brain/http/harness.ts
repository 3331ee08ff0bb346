import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { BrainMetrics, buildHttpServer } from '../../../../src/brain/http/index.js';
import { TokenStore } from '../../../../src/brain/http/token-store.js';
import type { HttpServerOptions } from '../../../../src/brain/http/server.js';
import { createLogger } from '../../../../src/log/index.js';
import { RecordingBrain } from './fake-brain.js';

/** Tokens of the test store; 43 chars like the generated ones. */
export const OPERATOR = 'op-0123456789abcdefghijklmnopqrstuvwxyzABCDE';
export const CI = 'ci-0123456789abcdefghijklmnopqrstuvwxyzABCDE';

export const auth = (token = OPERATOR) => ({ authorization: `Bearer ${token}` });

export interface Harness extends AsyncDisposable {
  readonly app: FastifyInstance;
  readonly brain: RecordingBrain;
  readonly metrics: BrainMetrics;
  /** Every log line the server wrote, as text. */
  logText(): string;
}

/** An app over a RecordingBrain with tokens `operator` and `ci`, logging at debug into memory. */
export async function harness(overrides: Partial<HttpServerOptions> = {}): Promise<Harness> {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString('utf8'));
      cb();
    },
  });
  const brain = new RecordingBrain();
  const metrics = new BrainMetrics();
  const app = await buildHttpServer({
    service: brain,
    tokens: TokenStore.from([
      { name: 'operator', token: OPERATOR },
      { name: 'ci', token: CI },
    ]),
    metrics,
    logger: createLogger({ level: 'debug', destination }),
    bodyLimitBytes: 4096,
    rateLimitPerMinute: 0,
    messageMaxChars: 100,
    ...overrides,
  });
  return {
    app,
    brain,
    metrics,
    logText: () => lines.join(''),
    [Symbol.asyncDispose]: () => app.close(),
  };
}
