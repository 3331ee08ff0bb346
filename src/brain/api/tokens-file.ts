import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { errorClass } from '../../errors/index.js';
import { zodFields } from '../../protocol/index.js';
import {
  formatFieldPath as formatPath,
  formatYamlIssue,
  MAX_YAML_BYTES,
  readYaml,
} from '../../text/index.js';
// the file itself, not the policy's index: a client reads tokens files without the policy
import { MAX_GROUPS, PRINCIPAL_NAME_RE, PRINCIPAL_NAME_RULE } from '../../policy/principal.js';

/**
 * The API tokens file: YAML `tokens: [{name, token, scopes?, principal?, groups?}]`, mode 0600.
 * The name is what the audit log records as `actor`, so a leaked or retired token can be told
 * apart and revoked alone; the principal (a person, a device, an agent) and its groups are
 * whom policy rules name (ADR 0096). Part of the API contract: the brain creates and reads it (`TokenStore`, in
 * src/brain/http), the CLI's clients read it with the same checks, so both ends accept the
 * same files, and a client loads none of the server to do so (ADR 0047).
 */

/**
 * What a token may do (docs/api.md, "Scopes"). `chat`: POST /v1/chat. `invoke`: POST
 * /v1/tools/{name}/invoke. `confirm`: approve or reject a pending confirmation. `read`:
 * GET /v1/tools and POST /v1/policy/explain. `audit`: GET /v1/audit and /v1/audit/counts
 * (every client's chats are in there). `metrics`: GET /metrics. /readyz needs any valid token.
 */
export const API_SCOPES = ['chat', 'invoke', 'confirm', 'read', 'audit', 'metrics'] as const;
export type ApiScope = (typeof API_SCOPES)[number];

/** One named API token. The name is what the audit log records as `actor`. */
export interface ApiToken {
  readonly name: string;
  readonly token: string;
  /** What the token may do; absent means every scope. */
  readonly scopes?: readonly ApiScope[];
  /**
   * Who holds the token (ADR 0096); absent: the token is its own principal, named `name`.
   * Several tokens may name one principal (two phones of one person).
   */
  readonly principal?: string;
  /** The principal's groups; absent means none. Every token of one principal lists the same. */
  readonly groups?: readonly string[];
}

/**
 * Token names: lower-case letters, digits, `_`, `.`, `-`; 1-64 characters. The principal
 * rule, since a token without a principal is its own.
 */
const TOKEN_NAME_PATTERN = PRINCIPAL_NAME_RE;
/** Shortest token value accepted. */
const MIN_TOKEN_CHARS = 24;
const MAX_TOKEN_CHARS = 512;
/** RFC 6750 `b64token`: what may follow `Bearer ` in a header. */
const TOKEN_VALUE_PATTERN = /^[A-Za-z0-9._~+/-]+=*$/;
const MAX_TOKENS = 1000;

type TokensFileErrorCode =
  'tokens_file_invalid' | 'tokens_file_unreadable' | 'tokens_file_insecure';

/** What each code's error is made of: the file, then the problems, the reason or the mode. */
type TokensFileErrorArgs =
  | [code: 'tokens_file_invalid', file: string, issues: readonly string[]]
  | [code: 'tokens_file_unreadable', file: string, reason: string, cause?: unknown]
  | [code: 'tokens_file_insecure', file: string, mode: string];

/**
 * The tokens file is missing, unreadable, too open, or does not follow its format. `issues`
 * has one line per problem (`file:line:col: key.path: message`), empty unless invalid.
 */
export const TokensFileError = errorClass<
  TokensFileErrorCode,
  TokensFileErrorArgs,
  { readonly file: string; readonly issues: readonly string[] }
>(['tokens_file_invalid', 'tokens_file_unreadable', 'tokens_file_insecure'], (...args) => {
  const file = args[1];
  switch (args[0]) {
    case 'tokens_file_invalid': {
      const issues = Object.freeze([...args[2]]);
      const problems = issues.map((i) => `\n  ${i}`).join('');
      const params = { file, count: plural(issues.length, 'problem'), problems };
      return { code: args[0], params, fields: { file, issues } };
    }
    case 'tokens_file_unreadable':
      return {
        code: args[0],
        params: { file, reason: args[2] },
        fields: { file, issues: [] },
        options: { cause: args[3] },
      };
    case 'tokens_file_insecure':
      return { code: args[0], params: { file, mode: args[2] }, fields: { file, issues: [] } };
  }
});
export type TokensFileError = InstanceType<typeof TokensFileError>;

const TokenEntrySchema = z.strictObject({
  name: z.string().regex(TOKEN_NAME_PATTERN, PRINCIPAL_NAME_RULE),
  token: z
    .string()
    .min(
      MIN_TOKEN_CHARS,
      `too short: at least ${MIN_TOKEN_CHARS} characters (32 random bytes, base64url)`,
    )
    .max(MAX_TOKEN_CHARS, `too long: at most ${MAX_TOKEN_CHARS} characters`)
    .regex(TOKEN_VALUE_PATTERN, 'expected letters, digits and `-._~+/` (optionally `=` padding)'),
  scopes: z
    .array(z.enum(API_SCOPES, { error: `expected one of ${API_SCOPES.join(', ')}` }), {
      error: `expected a list of scopes (${API_SCOPES.join(', ')})`,
    })
    .min(1, 'a token with no scope can do nothing: remove the token, or list its scopes')
    .refine((s) => new Set(s).size === s.length, 'a scope is listed twice')
    .optional(),
  principal: z.string().regex(PRINCIPAL_NAME_RE, PRINCIPAL_NAME_RULE).optional(),
  groups: z
    .array(z.string().regex(PRINCIPAL_NAME_RE, PRINCIPAL_NAME_RULE), {
      error: 'expected a list of group names',
    })
    .max(MAX_GROUPS, `at most ${MAX_GROUPS} groups`)
    .refine((g) => new Set(g).size === g.length, 'a group is listed twice')
    .optional(),
});

const TokensFileSchema = z.strictObject({
  tokens: z
    .array(TokenEntrySchema, {
      error: 'expected a list of {name, token, scopes?, principal?, groups?}',
    })
    .max(MAX_TOKENS, `at most ${MAX_TOKENS} tokens`),
});

/**
 * Creates the tokens file with one token named `operator` (32 random bytes, base64url) when
 * it does not exist: file mode 0600, missing parent directories 0700. Never overwrites.
 * @returns true when it created the file.
 */
export async function ensureTokensFile(path: string): Promise<boolean> {
  const cannot = (what: string, err: unknown) =>
    new TokensFileError(
      'tokens_file_unreadable',
      path,
      `cannot ${what} it: ${(err as Error).message}`,
      err,
    );
  let handle;
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    handle = await open(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw cannot('create', err);
  }
  try {
    await handle.writeFile(initialText(randomBytes(32).toString('base64url')));
    await handle.sync();
  } catch (err) {
    await handle.close();
    await unlink(path).catch(() => undefined); // a half-written file would fail every start
    throw cannot('write', err);
  }
  await handle.close();
  return true;
}

function initialText(token: string): string {
  return [
    '# CAESAR API tokens. Keep this file private: chmod 600.',
    '# Callers send `Authorization: Bearer <token>`; the audit log records the name as actor.',
    '# Add one entry per client so each can be revoked alone (values: >= 24 chars).',
    '# A token without `scopes` may do everything; limit a client with a list of',
    `# ${API_SCOPES.join(', ')} (docs/api.md, "Scopes"), e.g.:`,
    '#   - name: kitchen-tablet',
    '#     token: <32 random bytes, base64url>',
    '#     scopes: [chat]',
    '# `principal` and `groups` say who holds a token, for policy rules that name them',
    '# (docs/api.md, "Principals"); without them a token is its own principal.',
    'tokens:',
    '  - name: operator',
    `    token: ${token}`,
    '',
  ].join('\n');
}

/**
 * Reads and validates the tokens file: names unique and well-formed, values unique and at
 * least 24 characters, every token of one principal with the same groups, the file not
 * accessible by group or others. Errors name the file,
 * the line and the key path (`tokens[1].name`), never a token value.
 */
export async function readTokensFile(path: string): Promise<ApiToken[]> {
  const text = await readPrivateFile(path);
  // No aliases at all: a tokens file has no use for them (docs/api.md, "Tokens").
  const doc = readYaml(text, { maxAliases: 0 });
  if (doc.issues.length > 0) {
    const issues = doc.issues.map((i) => formatYamlIssue(path, i));
    throw new TokensFileError('tokens_file_invalid', path, issues);
  }
  const at = (p: readonly PropertyKey[]): string => {
    const { line, column } = doc.locate(p);
    return `${path}:${line}:${column}`;
  };
  const parsed = TokensFileSchema.safeParse(doc.value ?? {});
  if (!parsed.success) {
    const issues = zodFields(parsed.error).map((f) => {
      const message = f.unknownKey === undefined ? f.message : `unknown key '${f.unknownKey}'`;
      return `${at(f.path)}: ${formatPath(f.path)}: ${message}`;
    });
    throw new TokensFileError('tokens_file_invalid', path, issues);
  }
  const tokens = parsed.data.tokens;
  const dupes = [...duplicates(tokens), ...disagreeingGroups(tokens)].map(
    (d) => `${at(d.path)}: ${formatPath(d.path)}: ${d.message}`,
  );
  if (dupes.length > 0) throw new TokensFileError('tokens_file_invalid', path, dupes);
  return tokens;
}

/** The principal a token is: its `principal`, else its own name (ADR 0096). */
export function principalOfToken(t: ApiToken): { name: string; groups: readonly string[] } {
  return { name: t.principal ?? t.name, groups: t.groups ?? [] };
}

async function readPrivateFile(path: string): Promise<string> {
  const unreadable = (err: unknown): TokensFileError => {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : (err as Error).message;
    return new TokensFileError('tokens_file_unreadable', path, why, err);
  };
  const info = await stat(path).catch((err: unknown) => {
    throw unreadable(err);
  });
  if (!info.isFile()) throw unreadable(new Error('not a regular file'));
  if (process.platform !== 'win32' && (info.mode & 0o077) !== 0) {
    const mode = (info.mode & 0o777).toString(8).padStart(4, '0');
    throw new TokensFileError('tokens_file_insecure', path, mode);
  }
  if (info.size > MAX_YAML_BYTES) {
    throw unreadable(new Error(`larger than ${MAX_YAML_BYTES} bytes`));
  }
  return readFile(path, 'utf8').catch((err: unknown) => {
    throw unreadable(err);
  });
}

interface PathIssue {
  path: Array<string | number>;
  message: string;
}

function duplicates(tokens: readonly ApiToken[]): PathIssue[] {
  const names = new Map<string, number>();
  const values = new Map<string, number>();
  const out: PathIssue[] = [];
  tokens.forEach((t, i) => {
    const sameName = names.get(t.name);
    if (sameName === undefined) names.set(t.name, i);
    else
      out.push({
        path: ['tokens', i, 'name'],
        message: `duplicate name '${t.name}' (also tokens[${sameName}])`,
      });
    const sameValue = values.get(t.token);
    if (sameValue === undefined) values.set(t.token, i);
    else
      out.push({
        path: ['tokens', i, 'token'],
        message: `same token value as tokens[${sameValue}]`,
      });
  });
  return out;
}

/**
 * Tokens of one principal must agree on its groups: otherwise which phone a parent used would
 * decide what the parent may approve. Each disagreeing entry names the first one.
 */
function disagreeingGroups(tokens: readonly ApiToken[]): PathIssue[] {
  const first = new Map<string, { index: number; groups: string }>();
  const out: PathIssue[] = [];
  tokens.forEach((t, i) => {
    const p = principalOfToken(t);
    const groups = [...p.groups].sort().join(', ');
    const seen = first.get(p.name);
    if (seen === undefined) first.set(p.name, { index: i, groups });
    else if (seen.groups !== groups) {
      const path = ['tokens', i, t.groups === undefined ? 'name' : 'groups'];
      const theirs = seen.groups === '' ? 'no groups' : `groups [${seen.groups}]`;
      const message = `principal '${p.name}' has ${theirs} on tokens[${seen.index}]; every token of one principal lists the same groups`;
      out.push({ path, message });
    }
  });
  return out;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
