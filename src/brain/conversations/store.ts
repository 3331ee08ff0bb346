import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database, Transaction } from 'better-sqlite3';
import { unwritableReason } from '../../host/index.js';
import { errorMessage } from '../../errors/index.js';
import { openConnection } from './connection.js';
import { ConversationStoreError, SessionNotFoundError, wrapStoreError } from './errors.js';
import {
  normaliseStoreOptions,
  type ConversationStoreOptions,
  type ConversationStoreSettings,
} from './options.js';
import { newSessionId } from './session-id.js';
import { prepareStatements, type SessionRow, type Statements, type TurnRow } from './statements.js';
import { capText, decodeToolRecord, encodeToolRecord } from './truncate.js';
import type { PruneResult, Session, ToolTurnInput, Turn, TurnRole } from './types.js';

/** Longest actor (API token name) accepted. */
const MAX_ACTOR_CHARS = 256;

const iso = (ms: number): string => new Date(ms).toISOString();

function toTurn(row: TurnRow): Turn {
  const turn = { role: row.role, content: row.content, at: iso(row.at) };
  return row.tool === null ? turn : { ...turn, tool: decodeToolRecord(row.tool) };
}

function assertActor(actor: string): void {
  if (typeof actor !== 'string' || actor.length === 0 || actor.length > MAX_ACTOR_CHARS) {
    const got = typeof actor === 'string' ? `${actor.length} characters` : typeof actor;
    throw new RangeError(`actor must be a string of 1-${MAX_ACTOR_CHARS} characters, got ${got}`);
  }
}

type AppendFn = (sessionId: string, role: TurnRole, content: string, tool: string | null) => Turn;

/**
 * Server-side conversations: one SQLite file of sessions and their turns. A client sends
 * only its new message; the brain reads the history from here. Each session belongs to the
 * actor that created it, keeps its newest `historyLimit` turns, and the file keeps at most
 * `maxSessions` sessions, none idle longer than `idleTtlMs` once `prune()` ran. Every
 * method is synchronous and runs a few prepared statements.
 */
export class ConversationStore implements Disposable {
  /** The SQLite file. */
  readonly file: string;
  readonly #settings: ConversationStoreSettings;
  readonly #db: Database;
  readonly #sql: Statements;
  readonly #append: Transaction<AppendFn>;
  readonly #create: Transaction<(id: string, actor: string, now: number) => number>;
  /** Runs a callback in one transaction: a read snapshot, or `.immediate` for writes. */
  readonly #tx: Transaction<(fn: () => unknown) => unknown>;
  #closed = false;

  private constructor(db: Database, settings: ConversationStoreSettings) {
    this.file = settings.file;
    this.#settings = settings;
    this.#db = db;
    this.#sql = prepareStatements(db);
    this.#append = db.transaction<AppendFn>((sessionId, role, content, tool) => {
      const now = this.#now();
      if (this.#sql.touchSession.run(now, sessionId).changes === 0) {
        throw new SessionNotFoundError(sessionId);
      }
      this.#sql.insertTurn.run(sessionId, role, content, now, tool);
      this.#sql.trimTurns.run({ session: sessionId, keep: settings.historyLimit });
      return toTurn({ role, content, at: now, tool });
    });
    this.#create = db.transaction((id: string, actor: string, now: number) => {
      const { changes } = this.#sql.evictOver.run({ keep: settings.maxSessions - 1 });
      this.#sql.insertSession.run(id, actor, now, now);
      return changes;
    });
    this.#tx = db.transaction((fn: () => unknown) => fn());
  }

  /** Opens (creating and migrating as needed) the store. See `openConversationStore`. */
  static open(options: ConversationStoreOptions): ConversationStore {
    const settings = normaliseStoreOptions(options);
    try {
      mkdirSync(dirname(settings.file), { recursive: true });
    } catch (err) {
      const detail = err instanceof Error ? err.message : String(err);
      throw new ConversationStoreError(
        'conversations_open_failed',
        settings.file,
        `cannot create the directory of conversations database ${settings.file}: ${detail}`,
        err,
      );
    }
    const db = openConnection(settings.file);
    let store: ConversationStore;
    try {
      store = new ConversationStore(db, settings);
    } catch (err) {
      db.close();
      throw wrapStoreError(err, settings.file, 'preparing statements');
    }
    settings.logger.info({ path: settings.file }, 'conversation store open');
    return store;
  }

  /**
   * Starts a session owned by `actor` (the API token name) and returns its new id. When the
   * store is at `maxSessions`, the least recently updated session is deleted first.
   */
  createSession(actor: string): string {
    assertActor(actor);
    return this.#run('creating a session', () => {
      const id = newSessionId();
      const evicted = this.#create.immediate(id, actor, this.#now());
      if (evicted > 0) {
        this.#settings.logger.info(
          { evicted, maxSessions: this.#settings.maxSessions },
          'conversation store full: evicted the least recently updated session',
        );
      }
      return id;
    });
  }

  /**
   * The session a chat request continues: `id` when it exists and belongs to `actor`, a new
   * session of `actor` when `id` is undefined, and with `create`, a new session of `actor`
   * under `id` when no session has that id (a named session, ADR 0056; creating it evicts
   * as {@link createSession} does).
   * @throws SessionNotFoundError when `id` belongs to another actor, or is unknown and
   *   `create` is false (the same error, so ids cannot be probed): an unknown id is adopted
   *   only when the caller asks for it.
   */
  ensureSession(id: string | undefined, actor: string, create = false): string {
    assertActor(actor);
    if (id === undefined) return this.createSession(actor);
    return this.#run('reading a session', () =>
      this.#write(() => {
        const row = this.#sql.selectSession.get(id);
        if (row !== undefined && row.actor === actor) return id;
        if (row !== undefined || !create) throw new SessionNotFoundError(id);
        this.#create(id, actor, this.#now());
        return id;
      }),
    );
  }

  /** A session with its turns (oldest first), or undefined. Does not check the owner. */
  getSession(id: string): Session | undefined {
    return this.#run('reading a session', () =>
      this.#read((): Session | undefined => {
        const row: SessionRow | undefined = this.#sql.selectSession.get(id);
        if (row === undefined) return undefined;
        return {
          id: row.id,
          actor: row.actor,
          created_at: iso(row.created_at),
          updated_at: iso(row.updated_at),
          turns: this.#turns(id, this.#settings.historyLimit),
        };
      }),
    );
  }

  /**
   * The newest `limit` turns of a session, oldest first.
   * @param limit at most this many turns @default historyLimit
   * @throws SessionNotFoundError when the session does not exist (or was pruned)
   */
  history(sessionId: string, limit: number = this.#settings.historyLimit): Turn[] {
    if (!Number.isSafeInteger(limit) || limit < 0) {
      throw new RangeError(`history limit must be a non-negative integer, got ${limit}`);
    }
    return this.#run('reading history', () =>
      this.#read(() => {
        if (this.#sql.selectSession.get(sessionId) === undefined) {
          throw new SessionNotFoundError(sessionId);
        }
        return this.#turns(sessionId, Math.min(limit, this.#settings.historyLimit));
      }),
    );
  }

  /**
   * Appends the user's message, secrets redacted (the audit log's rules: "my password is X"
   * is stored as "my password is [redacted]") and capped at `MAX_CONTENT_CHARS`, with a
   * marker. History read back, the current turn's included, is what was stored.
   */
  appendUser(sessionId: string, text: string): Turn {
    return this.#appendTurn(sessionId, 'user', capText(String(text)), null);
  }

  /** Appends the assistant's reply (secrets redacted, capped at `MAX_CONTENT_CHARS`). */
  appendAssistant(sessionId: string, text: string): Turn {
    return this.#appendTurn(sessionId, 'assistant', capText(String(text)), null);
  }

  /**
   * Appends one tool call. Its payloads are stored redacted (values under secret-looking
   * keys replaced, credentials in strings replaced) as JSON of at most
   * `MAX_TOOL_RECORD_BYTES`; a payload over its share becomes a string preview with a marker.
   */
  appendTool(sessionId: string, record: ToolTurnInput): Turn {
    const { content, ...tool } = record;
    const text = content ?? `${String(tool.name)}: ${String(tool.outcome)}`;
    return this.#appendTurn(sessionId, 'tool', capText(String(text)), encodeToolRecord(tool));
  }

  /**
   * Deletes sessions idle longer than `idleTtlMs` at `now`, then the least recently updated
   * ones past `maxSessions`. The brain calls it on a timer.
   */
  prune(now: Date = this.#settings.clock()): PruneResult {
    const result = this.#run('pruning', () =>
      this.#write((): PruneResult => {
        const cutoff = now.getTime() - this.#settings.idleTtlMs;
        const expired = this.#sql.expireBefore.run(cutoff).changes;
        const evicted = this.#sql.evictOver.run({ keep: this.#settings.maxSessions }).changes;
        return { expired, evicted };
      }),
    );
    if (result.expired > 0 || result.evicted > 0) {
      this.#settings.logger.info(result, 'conversation store pruned');
    }
    return result;
  }

  /** Closes the file. Idempotent; every other method throws afterwards. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#db.close();
    } finally {
      this.#settings.logger.info({ path: this.file }, 'conversation store closed');
    }
  }

  [Symbol.dispose](): void {
    this.close();
  }

  #appendTurn(sessionId: string, role: TurnRole, content: string, tool: string | null): Turn {
    return this.#run(`appending a ${role} turn`, () =>
      this.#append.immediate(sessionId, role, content, tool),
    );
  }

  #read<T>(fn: () => T): T {
    return this.#tx(fn) as T;
  }

  #write<T>(fn: () => T): T {
    return this.#tx.immediate(fn) as T;
  }

  #turns(sessionId: string, limit: number): Turn[] {
    return this.#sql.selectTurns.all(sessionId, limit).reverse().map(toTurn);
  }

  #now(): number {
    return this.#settings.clock().getTime();
  }

  /** Runs `fn` on an open store, wrapping SQLite's errors in ConversationStoreError. */
  #run<T>(what: string, fn: () => T): T {
    if (this.#closed) {
      throw new ConversationStoreError(
        'conversations_closed',
        this.file,
        errorMessage('conversations_closed', { path: this.file }),
      );
    }
    // SQLite reaches the wal-index through a memory map, even to read: with the files turned
    // read-only (chattr +i, a read-only remount) that is SIGBUS, so ask the kernel first
    const unwritable = unwritableReason(this.file);
    if (unwritable !== undefined) {
      throw new ConversationStoreError(
        'conversations_failed',
        this.file,
        `conversation store ${this.file}: ${what} refused: ${unwritable}`,
      );
    }
    try {
      return fn();
    } catch (err) {
      throw wrapStoreError(err, this.file, what);
    }
  }
}

/**
 * Opens the conversation store at `options.file`: creates the directory and the file if
 * missing, migrates an older schema, and refuses a newer one or a file that is not a
 * conversations database (such as the audit log).
 * @throws ConversationStoreError `conversations_open_failed` or
 *   `conversations_schema_unsupported`, naming the file
 */
export function openConversationStore(options: ConversationStoreOptions): ConversationStore {
  return ConversationStore.open(options);
}
