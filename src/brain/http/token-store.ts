import { createHash } from 'node:crypto';
import {
  API_SCOPES,
  principalOfToken,
  readTokensFile,
  type ApiScope,
  type ApiToken,
  type Principal,
} from '../api/index.js';

/** Who a verified bearer token is. */
export interface TokenIdentity {
  readonly name: string;
  readonly scopes: ReadonlySet<ApiScope>;
  /** Whom policy rules see (ADR 0096): the token's principal and groups, else its own name. */
  readonly principal: Principal;
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
  readonly #principals: ReadonlyMap<string, Principal>;

  private constructor(byDigest: Map<string, TokenIdentity>, names: string[]) {
    this.#byDigest = byDigest;
    this.#names = Object.freeze(names);
    const principals = new Map<string, Principal>();
    for (const id of byDigest.values()) principals.set(id.principal.name, id.principal);
    this.#principals = principals;
  }

  /**
   * A store over already-validated tokens (`readTokensFile` validates). Duplicate names or
   * token values throw: each token must identify exactly one name.
   */
  static from(tokens: readonly ApiToken[]): TokenStore {
    const byDigest = new Map<string, TokenIdentity>();
    const names = new Set<string>();
    for (const t of tokens) {
      const { name, token, scopes } = t;
      const d = digest(token);
      if (names.has(name)) throw new Error(`duplicate API token name '${name}'`);
      if (byDigest.has(d)) throw new Error(`API token '${name}' reuses another token's value`);
      names.add(name);
      const p = principalOfToken(t);
      const principal = Object.freeze({ name: p.name, groups: Object.freeze([...p.groups]) });
      byDigest.set(d, {
        name,
        scopes: scopes === undefined ? ALL_SCOPES : new Set(scopes),
        principal,
      });
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

  /**
   * The principal of that name as the tokens name it (with its groups), or undefined when no
   * token is of it: what `caesar policy explain --principal` and the dashboard's form ask.
   */
  principal(name: string): Principal | undefined {
    return this.#principals.get(name);
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
