import { randomBytes } from 'node:crypto';

/**
 * Conversations a client keeps (`POST /v1/chat/completions`): each request is a new session
 * seeded with the client's messages, so the brain cannot tell which earlier request a new one
 * continues. Its sessions are named `client.<random>`, which no `/v1/chat` client can name
 * (a `.` is outside the session id grammar), so the brain can tell them apart; job ends are
 * reported to the token's next such request (ADR 0100), claimed under one ledger session per
 * token, `client.`, so each is told once.
 */
export const CLIENT_KEPT_PREFIX = 'client.';

/** The session, per token, under which job ends told to its client-kept requests are claimed. */
export const CLIENT_KEPT_LEDGER = CLIENT_KEPT_PREFIX;

/** A new client-kept session's id: the prefix and 16 random bytes as base64url. */
export function clientKeptSessionId(): string {
  return `${CLIENT_KEPT_PREFIX}${randomBytes(16).toString('base64url')}`;
}

/** Whether a session id names a client-kept session. */
export function isClientKept(sessionId: string): boolean {
  return sessionId.startsWith(CLIENT_KEPT_PREFIX) && sessionId !== CLIENT_KEPT_LEDGER;
}
