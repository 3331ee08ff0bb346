import type * as Undici from 'undici';
import type { Agent, WebSocket } from 'undici';
import { BackendError, NotConfiguredError, readJsonText } from '../../legion/index.js';
import { HA_NAME } from './client.js';
import { haSetting, type HaTarget } from './config.js';

/** @default 16 MiB: the entity registry of a large home is a few MiB. */
const WS_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** One command of Home Assistant's WebSocket API: `{type, ...}` (the session adds the id). */
type WsCommand = { readonly type: string } & Readonly<Record<string, unknown>>;

/** The answer to one command. */
export type WsResult =
  | { readonly success: true; readonly result: unknown }
  | { readonly success: false; readonly code: string; readonly message: string };

interface WsSessionOptions {
  /** Upper bound on the whole session: connect, auth and every answer. */
  readonly timeoutMs: number;
  /** @default WS_MAX_MESSAGE_BYTES */
  readonly maxMessageBytes?: number;
}

/** `http://ha:8123/` -> `ws://ha:8123/api/websocket` (same host, port and base path). */
export function websocketUrl(baseUrl: string): URL {
  const base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  const url = new URL('api/websocket', base);
  url.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
  return url;
}

/**
 * One short session of Home Assistant's WebSocket API (developers.home-assistant.io/docs/api/
 * websocket): connect, wait for `auth_required`, send the token in the `auth` message (never
 * in the URL), wait for `auth_ok`; then commands, each answered by one `result` with its id.
 * TLS checking follows `ha.verify_ssl`; each message is bounded in size and the whole session
 * in time: past its deadline every pending command fails and the socket is closed.
 */
export class HaWebSocket {
  readonly where: string;
  readonly #ws: WebSocket;
  readonly #agent: Agent;
  readonly #pending = new Map<number, (r: WsResult | Error) => void>();
  readonly #timer: NodeJS.Timeout;
  #nextId = 1;
  #failure: Error | undefined;
  #onAuth: ((outcome: Error | undefined) => void) | undefined;

  private constructor(
    { Agent, WebSocket }: Pick<typeof Undici, 'Agent' | 'WebSocket'>,
    target: HaTarget,
    options: WsSessionOptions,
  ) {
    const url = websocketUrl(target.url);
    this.where = `${HA_NAME}'s WebSocket API at ${url.origin}${url.pathname}`;
    this.#agent = new Agent({
      connect: { rejectUnauthorized: target.verifyTls, timeout: options.timeoutMs },
      webSocket: { maxPayloadSize: options.maxMessageBytes ?? WS_MAX_MESSAGE_BYTES },
    });
    this.#ws = new WebSocket(url, { dispatcher: this.#agent });
    this.#timer = setTimeout(
      () =>
        this.#fail(new BackendError(`${this.where} did not answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    this.#listen(target.token);
  }

  /**
   * Opens an authenticated session.
   * @throws NotConfiguredError when the token is refused; BackendError for anything else.
   */
  static async open(target: HaTarget, options: WsSessionOptions): Promise<HaWebSocket> {
    // undici is loaded by the first session, not with the tool (ADR 0048)
    const session = new HaWebSocket(await import('undici'), target, options);
    const failure = await new Promise<Error | undefined>((resolve) => (session.#onAuth = resolve));
    if (failure) {
      session.close();
      throw failure;
    }
    return session;
  }

  /** Sends one command and waits for its result (or the session's end). */
  command(command: WsCommand): Promise<WsResult> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    return new Promise<WsResult>((resolve, reject) => {
      this.#pending.set(id, (r) => (r instanceof Error ? reject(r) : resolve(r)));
      this.#ws.send(JSON.stringify({ ...command, id }));
    });
  }

  close(): void {
    this.#fail(new BackendError(`${this.where}: session closed`));
  }

  #listen(token: string): void {
    this.#ws.addEventListener('message', (ev) => {
      const messages = parseMessages(ev.data);
      if (messages === undefined) {
        this.#fail(
          new BackendError(`${this.where} sent a message that is not JSON`, { retryable: false }),
        );
      } else messages.forEach((m) => this.#onMessage(m, token));
    });
    this.#ws.addEventListener('close', (ev) => {
      const why = ev.code === 1009 ? ': a message was larger than the limit' : '';
      this.#fail(new BackendError(`${this.where} closed the connection (code ${ev.code})${why}`));
    });
    this.#ws.addEventListener('error', (ev) => {
      const cause = (ev as { error?: unknown }).error;
      this.#fail(
        new BackendError(`cannot open ${this.where}: ${describe(cause)}`, {
          ...(cause === undefined ? {} : { cause }),
        }),
      );
    });
  }

  #onMessage(msg: Record<string, unknown>, token: string): void {
    if (this.#onAuth) {
      if (msg.type === 'auth_required') {
        this.#ws.send(JSON.stringify({ type: 'auth', access_token: token }));
      } else if (msg.type === 'auth_ok') {
        this.#settleAuth(undefined);
      } else if (msg.type === 'auth_invalid') {
        this.#fail(
          new NotConfiguredError(
            `${this.where} rejected the access token: set a valid long-lived access token in ${haSetting('token')}`,
          ),
        );
      }
      return;
    }
    if (msg.type !== 'result' || typeof msg.id !== 'number') return;
    const settle = this.#pending.get(msg.id);
    this.#pending.delete(msg.id);
    settle?.(toResult(msg));
  }

  #settleAuth(outcome: Error | undefined): void {
    const onAuth = this.#onAuth;
    this.#onAuth = undefined;
    onAuth?.(outcome);
  }

  /** Ends the session once: pending commands and a pending auth fail with `err`. */
  #fail(err: Error): void {
    if (this.#failure) return;
    this.#failure = err;
    clearTimeout(this.#timer);
    this.#settleAuth(err);
    for (const settle of this.#pending.values()) settle(err);
    this.#pending.clear();
    const state = this.#ws.readyState;
    if (state === this.#ws.OPEN || state === this.#ws.CONNECTING) this.#ws.close();
    this.#agent.destroy().catch(() => undefined);
  }
}

/** One message or, when the server coalesces, a list of them. */
function parseMessages(data: unknown): Record<string, unknown>[] | undefined {
  if (typeof data !== 'string') return undefined;
  const read = readJsonText(data);
  if (!read.ok) return undefined;
  const v = read.value;
  const list = Array.isArray(v) ? (v as unknown[]) : [v];
  return list.filter((m): m is Record<string, unknown> => typeof m === 'object' && m !== null);
}

function toResult(msg: Record<string, unknown>): WsResult {
  if (msg.success === true) return { success: true, result: msg.result };
  const error = (msg.error ?? {}) as { code?: unknown; message?: unknown };
  return {
    success: false,
    code: typeof error.code === 'string' ? error.code : 'unknown_error',
    message: typeof error.message === 'string' ? error.message.slice(0, 300) : 'failed',
  };
}

function describe(err: unknown): string {
  const e = err as { message?: unknown; cause?: { code?: unknown; message?: unknown } } | undefined;
  const code = e?.cause?.code;
  if (typeof code === 'string') return code;
  const message = e?.message ?? e?.cause?.message;
  return typeof message === 'string' && message !== ''
    ? message.slice(0, 200)
    : 'connection failed';
}
