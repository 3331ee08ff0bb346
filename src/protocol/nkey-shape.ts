/**
 * The shape of an NKEY user's public key: `U` and 55 base32 characters, as
 * `caesar legion identity new` prints it. A shape check only: the key's CRC is checked where
 * it is used (src/protocol/grant.ts).
 */
export const NKEY_USER_PUBLIC_KEY = /^U[A-Z2-7]{55}$/;
