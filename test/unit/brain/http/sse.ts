import { request, type IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { OPERATOR } from './harness.js';

/** One parsed server-sent event, or a comment line (`: ping`). */
export type SseFrame =
  { kind: 'event'; event: string | undefined; data: string } | { kind: 'comment'; text: string };

/**
 * Splits an event-stream body into frames, strictly: every frame must end with a blank
 * line, and each line must be `event:`, `data:` or a comment, so a framing mistake fails the
 * test instead of being read generously.
 */
export function parseSse(body: string): SseFrame[] {
  if (body === '') return [];
  if (!body.endsWith('\n\n')) throw new Error(`stream does not end with a blank line: ${body}`);
  return body
    .slice(0, -2)
    .split('\n\n')
    .map((block): SseFrame => {
      const lines = block.split('\n');
      if (lines.length === 1 && lines[0]!.startsWith(':')) {
        return { kind: 'comment', text: lines[0]!.slice(1).trim() };
      }
      let event: string | undefined;
      const data: string[] = [];
      for (const line of lines) {
        if (line.startsWith('event: ')) event = line.slice('event: '.length);
        else if (line.startsWith('data: ')) data.push(line.slice('data: '.length));
        else throw new Error(`unexpected line in an event: ${JSON.stringify(line)}`);
      }
      if (data.length !== 1) throw new Error(`expected one data line: ${block}`);
      return { kind: 'event', event, data: data[0]! };
    });
}

/** The named events of a body, as `[name, parsed data]`. */
export function namedEvents(body: string): Array<[string | undefined, unknown]> {
  return parseSse(body)
    .filter((f) => f.kind === 'event')
    .map((f) => [f.event, JSON.parse(f.data) as unknown]);
}

/**
 * Collects a stream's text as it arrives, so a test can wait for a frame (`until`) and later
 * for the end (`all`) without losing what came in between.
 */
export class StreamText {
  text = '';
  readonly #ended: Promise<void>;
  #waiters: Array<{ test: (text: string) => boolean; resolve: (text: string) => void }> = [];

  constructor(stream: Readable) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      this.text += chunk;
      this.#waiters = this.#waiters.filter(
        (w) => !(w.test(this.text) && (w.resolve(this.text), true)),
      );
    });
    this.#ended = new Promise((resolve, reject) => {
      stream.once('end', resolve);
      stream.once('error', reject);
    });
    this.#ended.catch(() => undefined); // a destroyed stream is not an unhandled rejection
  }

  /** Resolves once the text so far satisfies `test`; rejects if the stream ends first. */
  async until(test: (text: string) => boolean): Promise<string> {
    if (test(this.text)) return this.text;
    const met = new Promise<string>((resolve) => this.#waiters.push({ test, resolve }));
    const ended = this.#ended.then(() => {
      throw new Error(`the stream ended before the condition held: ${this.text}`);
    });
    return Promise.race([met, ended]);
  }

  /** The whole text, once the stream ended. */
  async all(): Promise<string> {
    await this.#ended;
    return this.text;
  }
}

/** A promise and its resolver, for holding a turn open. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

export interface OpenStream extends StreamText {
  /** Destroys the client's socket, as a browser tab closing would. */
  close(): void;
}

/**
 * POSTs `payload` to `path` on a real loopback listener of `h.app` (node:http, which closes
 * its socket at once on destroy) with the operator token, asking for an event stream.
 */
export async function openStream(
  h: { app: FastifyInstance },
  path: string,
  payload: object,
  headers: Record<string, string> = {},
): Promise<OpenStream> {
  const url = new URL(await h.app.listen({ host: '127.0.0.1', port: 0 }));
  const req = request({
    host: url.hostname,
    port: url.port,
    path,
    method: 'POST',
    headers: {
      authorization: `Bearer ${OPERATOR}`,
      accept: 'text/event-stream',
      'content-type': 'application/json',
      ...headers,
    },
  });
  req.end(JSON.stringify(payload));
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  res.on('error', () => undefined); // the destroy below is the test's own doing
  const text = new StreamText(res) as OpenStream;
  text.close = () => req.destroy();
  return text;
}
