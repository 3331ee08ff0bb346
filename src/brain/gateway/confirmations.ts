import type { PolicyDecision } from '../../policy/index.js';
import type { Caller } from '../api/index.js';
import { newConfirmationId } from './ids.js';
import type { CallOrigin } from './provenance.js';

/** A call the policy sent for confirmation, held until a human decides or it expires. */
export interface PendingCall {
  readonly id: string;
  readonly tool: string;
  readonly input: unknown;
  readonly decisionId: string;
  /** The decision that asked for confirmation (its policy hash voids it on reload). */
  readonly decision: PolicyDecision;
  readonly summary: string;
  /** Who asked for the call. */
  readonly caller: Caller;
  /** How: directly, through a local rule, or a model after what it had read. */
  readonly origin: CallOrigin;
  /** The tool's preflight warnings when the call was held (ADR 0091); absent or empty: none. */
  readonly preflightWarnings?: readonly string[];
  readonly createdAt: number;
  readonly expiresAt: number;
}

export type VoidReason = 'expired' | 'policy_reloaded';

interface ConfirmationBookOptions {
  ttlMs: number;
  /** Most calls waiting at once; the oldest is expired to make room. @default 1000 */
  maxPending?: number;
  now?: () => number;
  /** Told about every call that leaves the book without a decision (for the audit log). */
  onVoid: (call: PendingCall, reason: VoidReason) => void;
}

/**
 * The calls waiting for a human: in memory (a restart voids them, which is the safe
 * direction), single-use, expiring. `take` removes the entry before anyone acts on it, so two
 * concurrent approvals cannot both run the call.
 */
export class ConfirmationBook {
  readonly #pending = new Map<string, PendingCall>();
  readonly #opts: Required<Omit<ConfirmationBookOptions, 'onVoid'>> &
    Pick<ConfirmationBookOptions, 'onVoid'>;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: ConfirmationBookOptions) {
    this.#opts = { maxPending: 1000, now: Date.now, ...options };
  }

  get size(): number {
    return this.#pending.size;
  }

  add(call: Omit<PendingCall, 'id' | 'createdAt' | 'expiresAt'>): PendingCall {
    this.sweep();
    while (this.#pending.size >= this.#opts.maxPending) {
      const oldest = this.#pending.values().next().value;
      if (oldest === undefined) break;
      this.#drop(oldest, 'expired');
    }
    const now = this.#opts.now();
    const entry: PendingCall = {
      ...call,
      id: newConfirmationId(),
      createdAt: now,
      expiresAt: now + this.#opts.ttlMs,
    };
    this.#pending.set(entry.id, entry);
    this.#arm();
    return entry;
  }

  /** The calls still waiting, oldest first (what is due is expired first). */
  list(): PendingCall[] {
    this.sweep();
    return [...this.#pending.values()];
  }

  /** The pending call without taking it; undefined when unknown or expired. */
  peek(id: string): PendingCall | undefined {
    const entry = this.#pending.get(id);
    return entry === undefined || entry.expiresAt <= this.#opts.now() ? undefined : entry;
  }

  /** Removes and returns the pending call; undefined when unknown, used or expired. */
  take(id: string): PendingCall | undefined {
    const entry = this.#pending.get(id);
    if (entry === undefined) return undefined;
    this.#pending.delete(id);
    if (entry.expiresAt <= this.#opts.now()) {
      this.#opts.onVoid(entry, 'expired');
      return undefined;
    }
    return entry;
  }

  /** Voids every pending call made under another policy than `policySha256`. */
  voidStale(policySha256: string): number {
    let n = 0;
    for (const entry of [...this.#pending.values()]) {
      if (entry.decision.policy_sha256 === policySha256) continue;
      this.#drop(entry, 'policy_reloaded');
      n++;
    }
    return n;
  }

  /** Expires what is due. The book also runs this on its own timer. */
  sweep(): void {
    const now = this.#opts.now();
    for (const entry of [...this.#pending.values()]) {
      if (entry.expiresAt <= now) this.#drop(entry, 'expired');
    }
  }

  /** Stops the timer. Calls still pending are left unaudited: the process is going away. */
  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #drop(entry: PendingCall, reason: VoidReason): void {
    this.#pending.delete(entry.id);
    this.#opts.onVoid(entry, reason);
  }

  /** One timer for the earliest expiry; entries are added in expiry order (same TTL). */
  #arm(): void {
    if (this.#timer !== undefined) return;
    const first = this.#pending.values().next().value;
    if (first === undefined) return;
    const delay = Math.max(0, first.expiresAt - this.#opts.now()) + 5;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.sweep();
      this.#arm();
    }, delay);
    this.#timer.unref();
  }
}
