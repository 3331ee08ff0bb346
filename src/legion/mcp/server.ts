import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { nextRestart, secondsText, type BackoffOptions } from '../../clock/index.js';
import type { Logger } from '../../log/index.js';
import { TimeoutError } from '../../protocol/index.js';
import { terminalLine } from '../../text/index.js';
import type { PreflightResult } from '../context.js';
import { McpServerError, McpServerUnavailableError, McpToolError } from './errors.js';
import { StderrTail } from './stderr-tail.js';
import { toolListChanges } from './tool-list.js';

/** Where the MCP server is: a command this worker starts (stdio), or a Streamable HTTP URL. */
export type McpTarget =
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      /** Added to the scrubbed environment (`getDefaultEnvironment()`: HOME, PATH, …). */
      readonly env?: Readonly<Record<string, string>>;
      readonly cwd?: string;
    }
  | { readonly kind: 'http'; readonly url: string };

export interface McpServerOptions {
  /** The CAESAR tool this server's tools are the actions of (names in messages and logs). */
  readonly tool: string;
  readonly target: McpTarget;
  readonly logger: Logger;
  /** How long `initialize` and `tools/list` may take, at start and at each restart. @default 10000 */
  readonly startTimeoutMs?: number;
  /** @default first restart after 250 ms, doubling to 30 s; 30 s up resets it */
  readonly backoff?: BackoffOptions;
  /** Jitter's source, `[0, 1)`. @default Math.random */
  readonly random?: () => number;
}

/** The most tools read from one server (pages of `tools/list` together). */
export const MAX_LISTED_TOOLS = 256;
const MAX_LIST_PAGES = 16;
/** A preflight's `tools/list` is shared by the actions that ask within this long. */
const CHECK_REUSE_MS = 1000;
const DEFAULT_BACKOFF: BackoffOptions = {
  backoffMs: 250,
  maxBackoffMs: 30_000,
  stableAfterMs: 30_000,
};

interface Connection {
  readonly client: Client;
  readonly transport: Transport;
  since: number;
  closed: boolean;
}

interface Down {
  readonly why: string;
  readonly retryAt: number;
}

/**
 * One MCP server kept running for `serve-mcp` (ADR 0095): started (or connected to) with the
 * official SDK client, its tools listed, and, when its process exits or its connection
 * closes, started again with exponential backoff and jitter. A call while it is down, or in
 * flight when it goes, fails at once with `mcp_server_unavailable`; the preflight says not
 * ready until it is back, and warns when its tools changed since the start.
 */
export class McpServer {
  readonly #o: McpServerOptions;
  readonly #stderr = new StderrTail();
  readonly #startTimeoutMs: number;
  #conn: Connection | undefined;
  #down: Down | undefined;
  #timer: NodeJS.Timeout | undefined;
  #failures = 0;
  #restarts = 0;
  #closed = false;
  #tools: readonly Tool[] = [];
  #served: { tools: readonly Tool[]; picked: boolean; unserved: string[] } | undefined;
  #info = { name: '?', version: '0.0.0' };
  #changes: string | undefined;
  #check: { at: number; result: Promise<PreflightResult> } | undefined;
  readonly #upListeners = new Set<() => void>();

  private constructor(o: McpServerOptions) {
    this.#o = o;
    this.#startTimeoutMs = o.startTimeoutMs ?? 10_000;
  }

  /**
   * Starts the server and lists its tools.
   * @throws {McpServerError} when it does not start or answer within `startTimeoutMs`
   */
  static async start(o: McpServerOptions): Promise<McpServer> {
    const server = new McpServer(o);
    try {
      const { conn, tools } = await server.#connect();
      server.#conn = conn;
      server.#tools = tools;
      const info = conn.client.getServerVersion();
      server.#info = { name: info?.name ?? '?', version: info?.version ?? '0.0.0' };
    } catch (err) {
      throw new McpServerError(
        { server: server.describe(), reason: server.#startFailure(err) },
        { cause: err },
      );
    }
    return server;
  }

  /** The tools the server listed when it started. */
  get tools(): readonly Tool[] {
    return this.#tools;
  }

  /**
   * The tools served from this server (after `--tools` and the refusals): the list later
   * answers are held against. @default every tool it listed at start
   */
  watch(tools: readonly Tool[], picked: boolean): void {
    const served = new Set(tools);
    const unserved = this.#tools.filter((t) => !served.has(t)).map((t) => t.name);
    this.#served = { tools, picked, unserved };
  }

  #changesIn(tools: readonly Tool[]): string | undefined {
    const { tools: served, ...o } = this.#served ?? { tools: this.#tools };
    return toolListChanges(served, tools, o);
  }

  /** The server's own name and version (`initialize`'s serverInfo), outside text. */
  get info(): { readonly name: string; readonly version: string } {
    return this.#info;
  }

  /** Where the server is, as the operator gave it. */
  get target(): McpTarget {
    return this.#o.target;
  }

  /** The running process's id (stdio), else undefined. */
  get pid(): number | undefined {
    const t = this.#conn?.transport;
    return t instanceof StdioClientTransport ? (t.pid ?? undefined) : undefined;
  }

  get up(): boolean {
    return this.#conn !== undefined;
  }

  /** Times the server was started again after it went down. */
  get restarts(): number {
    return this.#restarts;
  }

  /** The server as an operator named it: the command or the URL, escaped, bounded. */
  describe(): string {
    const t = this.#o.target;
    const text = t.kind === 'http' ? t.url : [t.command, ...t.args].join(' ');
    return terminalLine(text.length > 200 ? `${text.slice(0, 200)}…` : text);
  }

  /** Resolves when the server is up (at once when it is). */
  async whenUp(): Promise<void> {
    if (this.up) return;
    await new Promise<void>((resolve) => this.#upListeners.add(resolve));
  }

  /**
   * Calls the server's tool `name` (its own name). The MCP result as it came, `isError`
   * included; the caller reads it.
   * @throws {McpServerUnavailableError} the server is down, or went down during the call
   * @throws {TimeoutError} the server did not answer within `timeoutMs`
   * @throws {McpToolError} the server refused the call with a JSON-RPC error
   */
  async call(
    name: string,
    args: Record<string, unknown>,
    o: { signal: AbortSignal; timeoutMs: number },
  ): Promise<CallToolResult> {
    const conn = this.#conn;
    if (conn === undefined) {
      throw new McpServerUnavailableError({ tool: this.#o.tool, reason: this.#downText() });
    }
    try {
      const r = await conn.client.callTool({ name, arguments: args }, undefined, {
        signal: o.signal,
        timeout: Math.max(1, o.timeoutMs),
      });
      return r as CallToolResult;
    } catch (err) {
      if (o.signal.aborted) throw o.signal.reason;
      throw this.#callFailure(conn, err, o.timeoutMs);
    }
  }

  /** A failed call as a coded error; a lost connection also starts the restart. */
  #callFailure(conn: Connection, err: unknown, timeoutMs: number): Error {
    if (err instanceof McpError && err.code === Number(ErrorCode.RequestTimeout)) {
      return new TimeoutError(`the MCP server did not answer within ${secondsText(timeoutMs)}`, {
        cause: err,
      });
    }
    const lost =
      conn.closed || !(err instanceof McpError) || err.code === Number(ErrorCode.ConnectionClosed);
    if (lost) {
      this.#lost(conn, 'closed its connection during a call');
      const reason = `it went down during the call; ${this.#downText()}`;
      return new McpServerUnavailableError({ tool: this.#o.tool, reason }, { cause: err });
    }
    const words = terminalLine(err.message.slice(0, 500));
    return new McpToolError(
      {
        tool: this.#o.tool,
        reason: `the server refused the call (JSON-RPC ${err.code}): ${words}`,
      },
      { cause: err },
    );
  }

  /**
   * The preflight: is the server up and answering `tools/list` now, and are its tools those
   * served? Shared by the actions asking within a second of each other.
   */
  check(): Promise<PreflightResult> {
    const now = Date.now();
    if (this.#check && now - this.#check.at < CHECK_REUSE_MS) return this.#check.result;
    const result = this.#checkNow();
    this.#check = { at: now, result };
    return result;
  }

  async #checkNow(): Promise<PreflightResult> {
    const name = 'mcp_server';
    const conn = this.#conn;
    if (conn === undefined) {
      return { ok: false, checks: [{ name, ok: false, detail: this.#downText() }] };
    }
    try {
      const tools = await listTools(conn.client, Math.min(this.#startTimeoutMs, 3000));
      this.#changes = this.#changesIn(tools);
    } catch (err) {
      const detail = `it did not answer tools/list: ${terminalLine(errorText(err))}`;
      return { ok: false, checks: [{ name, ok: false, detail }] };
    }
    const pid = this.pid === undefined ? '' : ` (pid ${this.pid})`;
    const restarted = this.#restarts === 0 ? '' : `, started again ${this.#restarts} time(s)`;
    const who = terminalLine(`${this.#info.name} ${this.#info.version}`.slice(0, 120));
    const detail = `${who} answers tools/list${pid}${restarted}`;
    return {
      ok: true,
      checks: [{ name, ok: true, detail }],
      ...(this.#changes === undefined ? {} : { warnings: [this.#changes] }),
    };
  }

  /** Stops the server (or closes the connection) for good. Safe to call twice. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    const conn = this.#conn;
    this.#conn = undefined;
    if (conn !== undefined) {
      conn.closed = true;
      await conn.client.close().catch(() => undefined);
    }
  }

  /** One connection: the transport started, `initialize` answered, the tools listed. */
  async #connect(): Promise<{ conn: Connection; tools: Tool[] }> {
    const transport = this.#transport();
    const client = new Client({ name: 'caesar-serve-mcp', version: '1.0.0' }, { capabilities: {} });
    const conn: Connection = { client, transport, since: Date.now(), closed: false };
    client.onclose = () => {
      conn.closed = true;
      this.#lost(conn, 'exited');
    };
    try {
      await client.connect(transport, { timeout: this.#startTimeoutMs });
      const tools = await listTools(client, this.#startTimeoutMs);
      if (conn.closed) throw new Error('it exited right after it started');
      conn.since = Date.now();
      return { conn, tools };
    } catch (err) {
      conn.closed = true;
      await client.close().catch(() => undefined);
      throw err;
    }
  }

  #transport(): Transport {
    const t = this.#o.target;
    if (t.kind === 'http') return new StreamableHTTPClientTransport(new URL(t.url));
    const transport = new StdioClientTransport({
      command: t.command,
      args: [...t.args],
      // the server gets what a sudo'd command gets, and what the operator names: never the
      // worker's own environment, which holds CAESAR's settings and secrets
      env: { ...getDefaultEnvironment(), ...t.env },
      stderr: 'pipe',
      ...(t.cwd === undefined ? {} : { cwd: t.cwd }),
    });
    transport.stderr?.on('data', (chunk: Buffer) =>
      this.#stderr.add(chunk.toString('utf8'), (line) =>
        this.#o.logger.debug({ mcpStderr: line }, 'MCP server stderr'),
      ),
    );
    return transport;
  }

  /** The connection `conn` is gone: start the server again after the backoff. */
  #lost(conn: Connection, why: string): void {
    if (this.#closed || this.#conn !== conn) return;
    this.#conn = undefined;
    const ran = Date.now() - conn.since;
    const next = nextRestart(this.#failures, ran, this.#o.backoff ?? DEFAULT_BACKOFF);
    this.#failures = next.failures;
    void conn.client.close().catch(() => undefined);
    this.#schedule(next.delayMs, `${why} after ${secondsText(ran)} up`);
  }

  #schedule(delayMs: number, why: string): void {
    const delay = Math.round(delayMs * (0.5 + 0.5 * (this.#o.random ?? Math.random)()));
    this.#down = { why, retryAt: Date.now() + delay };
    this.#o.logger.warn(
      { restartInMs: delay, attempt: this.#failures, stderr: this.#stderr.lines() },
      `the MCP server ${why}; starting it again in ${secondsText(delay)}`,
    );
    this.#timer = setTimeout(() => void this.#restart(), delay);
  }

  async #restart(): Promise<void> {
    this.#timer = undefined;
    if (this.#closed) return;
    try {
      const { conn, tools } = await this.#connect();
      if (this.#closed) {
        await conn.client.close().catch(() => undefined);
        return;
      }
      this.#conn = conn;
      this.#down = undefined;
      this.#restarts += 1;
      this.#changes = this.#changesIn(tools);
      if (this.#changes !== undefined) this.#o.logger.warn(this.#changes);
      this.#o.logger.info(
        { restarts: this.#restarts, pid: this.pid },
        'the MCP server is up again',
      );
      for (const resolve of this.#upListeners) resolve();
      this.#upListeners.clear();
    } catch (err) {
      const next = nextRestart(this.#failures, 0, this.#o.backoff ?? DEFAULT_BACKOFF);
      this.#failures = next.failures;
      this.#schedule(next.delayMs, `did not start again (${terminalLine(errorText(err))})`);
    }
  }

  /** Why the server is not answering, and when it is tried again. */
  #downText(): string {
    const down = this.#down;
    if (this.#closed || down === undefined) return 'the worker is stopping';
    const left = Math.max(0, down.retryAt - Date.now());
    return `the server ${down.why}; starting it again in ${secondsText(left)} (attempt ${this.#failures})`;
  }

  #startFailure(err: unknown): string {
    const tail = this.#stderr.lines().slice(-3);
    const stderr = tail.length === 0 ? '' : `; its stderr ended: ${tail.join(' | ')}`;
    const timedOut = err instanceof McpError && err.code === Number(ErrorCode.RequestTimeout);
    const what = timedOut
      ? `it did not answer initialize and tools/list within ${secondsText(this.#startTimeoutMs)} (--start-timeout)`
      : `it did not start: ${terminalLine(errorText(err))}`;
    return `${what}${stderr}`;
  }
}

function errorText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 300);
}

/** Every page of `tools/list`, bounded in pages and tools. */
async function listTools(client: Client, timeoutMs: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const r = await client.listTools(cursor === undefined ? {} : { cursor }, {
      timeout: timeoutMs,
    });
    tools.push(...r.tools);
    if (tools.length > MAX_LISTED_TOOLS) {
      throw new Error(`it lists more than ${MAX_LISTED_TOOLS} tools`);
    }
    cursor = r.nextCursor;
    if (cursor === undefined) return tools;
  }
  throw new Error(`its tools/list ran past ${MAX_LIST_PAGES} pages`);
}
