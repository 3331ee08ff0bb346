import { createHash } from 'node:crypto';
import { API_SCOPES, readTokensFile, type ApiScope, type ApiToken } from '../api/index.js';

/** Who a verified bearer token is. */
export interface TokenIdentity {
  readonly name: string;
  readonly scopes: ReadonlySet<ApiScope>;
}

const ALL_SCOPES: ReadonlySet<ApiScope> = new Set(API_SCOPES);

/** Bearer values longer than this are refused without hashing them. */
const MAX_BEARER_CHARS = 1024;

function digest(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('base64');
}

/**
 * The API tokens the server accepts, kept only as SHA-256 digests. `verify` hashes the
 * presented value and looks the digest up in a Map: the time it takes depends on the digest,
 * never on how many leading characters of a real token the caller guessed right
 * (ADR 0032). The token values themselves are not kept.
 */
export class TokenStore {
  readonly #byDigest: ReadonlyMap<string, TokenIdentity>;
  readonly #names: readonly string[];

  private constructor(byDigest: Map<string, TokenIdentity>, names: string[]) {
    this.#byDigest = byDigest;
    this.#names = Object.freeze(names);
  }

  /**
   * A store over already-validated tokens (`readTokensFile` validates). Duplicate names or
   * token values throw: each token must identify exactly one name.
   */
  static from(tokens: readonly ApiToken[]): TokenStore {
    const byDigest = new Map<string, TokenIdentity>();
    const names = new Set<string>();
    for (const { name, token, scopes } of tokens) {
      const d = digest(token);
      if (names.has(name)) throw new Error(`duplicate API token name '${name}'`);
      if (byDigest.has(d)) throw new Error(`API token '${name}' reuses another token's value`);
      names.add(name);
      byDigest.set(d, { name, scopes: scopes === undefined ? ALL_SCOPES : new Set(scopes) });
    }
    return new TokenStore(byDigest, [...names]);
  }

  /** How many tokens the store holds; a non-loopback bind needs at least one. */
  get size(): number {
    return this.#byDigest.size;
  }

  /** Token names, in file order (never the values). */
  get names(): readonly string[] {
    return this.#names;
  }

  /** Which token `bearer` is, or undefined when it is none of them. */
  verify(bearer: string): TokenIdentity | undefined {
    if (bearer.length === 0 || bearer.length > MAX_BEARER_CHARS) return undefined;
    return this.#byDigest.get(digest(bearer));
  }
}

/** Reads the tokens file (see `readTokensFile`) into a TokenStore. */
export async function loadTokens(path: string): Promise<TokenStore> {
  return TokenStore.from(await readTokensFile(path));
}
