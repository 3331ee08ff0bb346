import { randomBytes } from 'node:crypto';

/**
 * A new session id: 16 random bytes as 22 base64url characters. Unguessable (128 bits, where
 * a UUIDv7 has 74 random bits and tells everyone when it was made), and within the
 * `[A-Za-z0-9_-]{1,64}` the chat request schema accepts.
 */
export function newSessionId(): string {
  return randomBytes(16).toString('base64url');
}
