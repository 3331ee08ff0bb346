import { ConfigError, RuntimeFileError } from '../../../config/index.js';
import { CaesarError } from '../../../errors/index.js';
import { catalogPath, isPlanned, readCatalog } from '../../../legion/catalog/index.js';
import {
  flowSummary,
  formatPolicySummary,
  unknownAudienceWarnings,
  unknownToolWarnings,
  type CompiledPolicy,
} from '../../../policy/index.js';
import { principalOfToken, readTokensFile } from '../../../brain/api/index.js';
import { shippedToolNames } from '../../../../workers/index.js';
import { consoleIo, EXIT_USAGE, loadPolicyConfig, withPolicy, type PolicyCliIo } from './load.js';
import type { PolicyCheckOptions } from './flags.js';

/**
 * What the offline check says of a tool neither shipped nor catalogued: it cannot see
 * workers the catalog does not list (`worker.modules`, another host); the running brain can.
 */
const NOT_KNOWN_OFFLINE =
  'is neither a shipped tool nor in the catalog (an offline check; `caesar policy status` also knows the running workers)';

/** The catalog's names (ADR 0090): the tools it lists with a module or a host, and its stubs. */
interface CatalogNames {
  readonly catalogued: readonly string[];
  readonly planned: readonly string[];
  /** The configured API tokens file (`api.tokens_file`), read when it is there. */
  readonly tokensFile: string;
}

/**
 * `caesar policy check [file]`: loads the policy and reports problems with file:line:column.
 * Warnings (a rule that never applies, a tool neither shipped nor catalogued, a tool the
 * catalog only plans) leave the exit code 0; `--strict` makes them exit 1.
 */
export async function runPolicyCheck(
  file: string | undefined,
  opts: PolicyCheckOptions,
  io: PolicyCliIo = consoleIo,
): Promise<number> {
  if (file !== undefined && opts.policy !== undefined && file !== opts.policy) {
    io.err('caesar policy check: give the policy file as an argument or as --policy, not both');
    return EXIT_USAGE;
  }
  return withPolicy({ ...opts, policy: file ?? opts.policy }, io, async (loaded) => {
    const catalog = await catalogNames(opts, io);
    if (catalog === null) return false;
    const checked = await withAudienceWarnings(
      withToolWarnings(loaded, catalog),
      catalog.tokensFile,
    );
    if (opts.json) {
      const { file: path, sha256, rules, warnings } = checked;
      const flow = flowSummary(checked);
      io.out(JSON.stringify({ ok: true, file: path, sha256, rules, flow, warnings }, null, 2));
    } else {
      formatPolicySummary(checked).forEach((l) => io.out(l));
    }
    return opts.strict !== true || checked.warnings.length === 0;
  });
}

/**
 * The catalog in the config's data dir, read without importing a module; null once a config
 * or catalog that does not load has been reported.
 */
async function catalogNames(
  opts: PolicyCheckOptions,
  io: PolicyCliIo,
): Promise<CatalogNames | null> {
  try {
    const { dataDir, api } = await loadPolicyConfig(opts, io);
    const { tools } = await readCatalog(catalogPath(dataDir));
    return {
      catalogued: tools.filter((t) => !isPlanned(t)).map((t) => t.name),
      planned: tools.filter(isPlanned).map((t) => t.name),
      tokensFile: api.tokensFile,
    };
  } catch (err) {
    const reported =
      err instanceof ConfigError ||
      err instanceof RuntimeFileError ||
      (err instanceof CaesarError && err.code === 'catalog_invalid');
    if (!reported) throw err;
    io.err(err.message);
    return null;
  }
}

/**
 * The policy with a warning for each principal or group its rules name that the tokens file
 * does not define (ADR 0096), when that file is at hand and readable; otherwise as it is: the
 * check never fails for want of a tokens file.
 */
async function withAudienceWarnings(
  policy: CompiledPolicy,
  tokensFile: string,
): Promise<CompiledPolicy> {
  if (policy.audienceMentions.length === 0) return policy;
  const tokens = await readTokensFile(tokensFile).catch(() => undefined);
  if (tokens === undefined) return policy;
  const principals = tokens.map(principalOfToken);
  const known = {
    principals: principals.map((p) => p.name),
    groups: principals.flatMap((p) => p.groups),
  };
  const extra = unknownAudienceWarnings(policy.audienceMentions, known, tokensFile);
  if (extra.length === 0) return policy;
  const warnings = [...policy.warnings, ...extra].sort(
    (a, b) => a.line - b.line || a.column - b.column,
  );
  return { ...policy, warnings };
}

/**
 * The policy with a warning for each tool it names that is neither shipped nor catalogued,
 * and for each it names that the catalog only plans.
 */
function withToolWarnings(policy: CompiledPolicy, catalog: CatalogNames): CompiledPolicy {
  const known = [...shippedToolNames(), ...catalog.catalogued];
  const tools = unknownToolWarnings(policy.toolMentions, known, {
    unknown: NOT_KNOWN_OFFLINE,
    planned: catalog.planned,
  });
  if (tools.length === 0) return policy;
  const warnings = [...policy.warnings, ...tools].sort(
    (a, b) => a.line - b.line || a.column - b.column,
  );
  return { ...policy, warnings };
}
