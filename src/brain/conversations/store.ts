import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database, Transaction } from 'better-sqlite3';
import { unwritableReason } from '../../files/index.js';
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
import type { PruneResult, Session, SessionRef, ToolTurnInput, Turn, TurnRole } from './types.js';

/** Longest actor (API token name) accepted. */
const MAX_ACTOR_CHARS = 256;

/**
 * Job ends a session remembers having told (ADR 0100): more than the jobs a turn looks at
 * (`JOB_REPORT_WINDOW`), so a job still in that window is never told twice.
 */
const JOB_MARKS_KEPT = 64;

/** A job a conversation submitted, as {@link ConversationStore.claimJobReports} takes it. */
export interface JobToReport {
  readonly id: string;
  /** Epoch milliseconds. */
  readonly submittedAt: number;
}

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

type AppendFn = (session: SessionRef, role: TurnRole, content: string, tool: string | null) => Turn;

/**
 * Server-side conversations: one SQLite file of sessions and their turns. A client sends
 * only its new message; the brain reads the history from here. Each session belongs to the
 * actor that created it and is named by that actor and its id together (a `SessionRef`), so
 * two actors' sessions of one name are two conversations and no method reaches another
 * actor's (ADR 0063). A session keeps its newest `historyLimit` turns, and the file keeps at
 * most `maxSessions` sessions, none idle longer than `idleTtlMs` once `prune()` ran. Every
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
    this.#append = db.transaction<AppendFn>((session, role, content, tool) => {
      const now = this.#now();
      const row = this.#sql.touchSession.get(now, session.actor, session.id);
      if (row === undefined) throw new SessionNotFoundError(session.id);
      this.#sql.insertTurn.run(row.key, role, content, now, tool);
      this.#sql.trimTurns.run({ session: row.key, keep: settings.historyLimit });
      return toTurn({ role, content, at: now, tool });
    });
    this.#create = db.transaction((id: string, actor: string, now: number) => {
      const { changes } = this.#sql.evictOver.run({ keep: settings.maxSessions - 1 });
      this.#sql.insertSession.run(actor, id, now, now);
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
      const reason = err instanceof Error ? err.message : String(err);
      throw new ConversationStoreError(
        'conversations_open_failed',
        settings.file,
        { action: 'create the directory of', reason },
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
   * Starts a session owned by `actor` (the API token name) under a new id. When the store is
   * at `maxSessions`, the least recently updated session is deleted first.
   */
  createSession(actor: string): SessionRef {
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
      return { actor, id };
    });
  }

  /**
   * The session a chat request continues: `actor`'s session `id` when it exists, a new
   * session of `actor` when `id` is undefined, and with `create`, a new session of `actor`
   * under `id` when `actor` has none of that id (a named session, ADR 0056; creating it
   * evicts as {@link createSession} does). Another actor's session of the same id is neither
   * seen nor touched: it is another conversation (ADR 0063).
   * @throws SessionNotFoundError when `actor` has no session `id` and `create` is false:
   *   an unknown id is adopted only when the caller asks for it.
   */
  ensureSession(id: string | undefined, actor: string, create = false): SessionRef {
    assertActor(actor);
    if (id === undefined) return this.createSession(actor);
    return this.#run('reading a session', () =>
      this.#write(() => {
        if (this.#sql.selectSession.get(actor, id) !== undefined) return { actor, id };
        if (!create) throw new SessionNotFoundError(id);
        this.#create(id, actor, this.#now());
        return { actor, id };
      }),
    );
  }

  /** A session with its turns (oldest first), or undefined. */
  getSession(session: SessionRef): Session | undefined {
    return this.#run('reading a session', () =>
      this.#read((): Session | undefined => {
        const row = this.#sql.selectSession.get(session.actor, session.id);
        if (row === undefined) return undefined;
        return {
          id: row.id,
          actor: row.actor,
          created_at: iso(row.created_at),
          updated_at: iso(row.updated_at),
          turns: this.#turns(row, this.#settings.historyLimit),
        };
      }),
    );
  }

  /**
   * The newest `limit` turns of a session, oldest first.
   * @param limit at most this many turns @default historyLimit
   * @throws SessionNotFoundError when the session does not exist (or was pruned)
   */
  history(session: SessionRef, limit: number = this.#settings.historyLimit): Turn[] {
    if (!Number.isSafeInteger(limit) || limit < 0) {
      throw new RangeError(`history limit must be a non-negative integer, got ${limit}`);
    }
    return this.#run('reading history', () =>
      this.#read(() => {
        const row = this.#sql.selectSession.get(session.actor, session.id);
        if (row === undefined) throw new SessionNotFoundError(session.id);
        return this.#turns(row, Math.min(limit, this.#settings.historyLimit));
      }),
    );
  }

  /**
   * Appends the user's message, secrets redacted (the audit log's rules: "my password is X"
   * is stored as "my password is [redacted]") and capped at `MAX_CONTENT_CHARS`, with a
   * marker. History read back, the current turn's included, is what was stored.
   */
  appendUser(session: SessionRef, text: string): Turn {
    return this.#appendTurn(session, 'user', capText(String(text)), null);
  }

  /** Appends the assistant's reply (secrets redacted, capped at `MAX_CONTENT_CHARS`). */
  appendAssistant(session: SessionRef, text: string): Turn {
    return this.#appendTurn(session, 'assistant', capText(String(text)), null);
  }

  /**
   * Appends one tool call. Its payloads are stored redacted (values under secret-looking
   * keys replaced, credentials in strings replaced) as JSON of at most
   * `MAX_TOOL_RECORD_BYTES`; a payload over its share becomes a string preview with a marker.
   */
  appendTool(session: SessionRef, record: ToolTurnInput): Turn {
    const { content, ...tool } = record;
    const text = content ?? `${String(tool.name)}: ${String(tool.outcome)}`;
    return this.#appendTurn(session, 'tool', capText(String(text)), encodeToolRecord(tool));
  }

  /**
   * Claims the right to tell `session` that these jobs ended (ADR 0100): the ids not told
   * before, each claimed once (two turns at once never both tell one), in the order given.
   * A job submitted before the session was created is never claimed: a session deleted and
   * started again under its name is another conversation, which did not submit it. Nothing
   * is claimed for a session that no longer exists (its reports are dropped with it). The
   * session counts as used (`updated_at`), so a ledger session in use is not pruned.
   */
  claimJobReports(session: SessionRef, jobs: readonly JobToReport[]): string[] {
    return this.#run('claiming job reports', () =>
      this.#write(() => {
        const now = this.#now();
        const row = this.#sql.touchSessionKey.get(now, session.actor, session.id);
        if (row === undefined) return [];
        const claimed: string[] = [];
        for (const job of jobs) {
          if (job.submittedAt < row.created_at) continue;
          if (this.#sql.insertJobReport.run(row.key, job.id, now).changes === 1) {
            claimed.push(job.id);
          }
        }
        if (claimed.length > 0) {
          this.#sql.trimJobReports.run({ session: row.key, keep: JOB_MARKS_KEPT });
        }
        return claimed;
      }),
    );
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

  #appendTurn(session: SessionRef, role: TurnRole, content: string, tool: string | null): Turn {
    return this.#run(`appending a ${role} turn`, () =>
      this.#append.immediate(session, role, content, tool),
    );
  }

  #read<T>(fn: () => T): T {
    return this.#tx(fn) as T;
  }

  #write<T>(fn: () => T): T {
    return this.#tx.immediate(fn) as T;
  }

  #turns(session: SessionRow, limit: number): Turn[] {
    return this.#sql.selectTurns.all(session.key, limit).reverse().map(toTurn);
  }

  #now(): number {
    return this.#settings.clock().getTime();
  }

  /** Runs `fn` on an open store, wrapping SQLite's errors in ConversationStoreError. */
  #run<T>(what: string, fn: () => T): T {
    if (this.#closed) {
      throw new ConversationStoreError('conversations_closed', this.file, {});
    }
    // SQLite reaches the wal-index through a memory map, even to read: with the files turned
    // read-only (chattr +i, a read-only remount) that is SIGBUS, so ask the kernel first
    const unwritable = unwritableReason(this.file);
    if (unwritable !== undefined) {
      throw new ConversationStoreError('conversations_failed', this.file, {
        what,
        outcome: 'refused',
        reason: unwritable,
      });
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
