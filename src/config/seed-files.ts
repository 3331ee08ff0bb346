import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { errorClass } from '../errors/index.js';
import { fileExists } from '../files/index.js';
import { envVarName } from '../text/index.js';
import {
  DEFAULT_INTENTS_FILE_NAME,
  DEFAULT_POLICY_FILE_NAME,
  SHIPPED_INTENTS_FILE,
  SHIPPED_POLICY_FILE,
} from './shipped.js';
import type { CaesarConfig } from './types.js';

/**
 * The policy and intents files a server starts with (ADR 0056). Left unset, each lives in
 * the data dir and is copied there from the package's shipped file on first start, never
 * over a file that is already there (the operator's edits win). Set by flag, env var or
 * caesar.yaml, it must exist: only the default place is ever filled in.
 */

/** A policy or intents file given explicitly does not exist. */
export const ConfigFileMissingError = errorClass(
  'config_file_missing',
  (key: string, file: string, next: string) => ({
    params: { key, file, next },
    fields: { key, file },
  }),
);
export type ConfigFileMissingError = InstanceType<typeof ConfigFileMissingError>;

/** One of the files, where it is and whether this start copied it there. */
export interface SeededFile {
  readonly file: string;
  /** True when this start copied the shipped file to `file`. */
  readonly copied: boolean;
  /** The shipped file it is (or would be) a copy of. */
  readonly shipped: string;
}

interface FileRule {
  /** The setting, as the error names it (with its env var and flag). */
  readonly key: string;
  readonly file: string;
  readonly defaultFile: string;
  readonly shipped: string;
}

/**
 * Makes sure the configured policy and intents files exist: copies each shipped file to its
 * default place in the data dir when that is the configured file and it is missing.
 * @throws {ConfigFileMissingError} when a file set explicitly does not exist.
 */
export async function seedDefaultFiles(
  config: CaesarConfig,
): Promise<{ policy: SeededFile; intents: SeededFile }> {
  const policy = await seedOne({
    key: keyName(['policy', 'file'], '--policy'),
    file: config.policy.file,
    defaultFile: join(config.dataDir, DEFAULT_POLICY_FILE_NAME),
    shipped: SHIPPED_POLICY_FILE,
  });
  const intents = await seedOne({
    key: keyName(['brain', 'intents_file'], '--intents'),
    file: config.brain.intentsFile,
    defaultFile: join(config.dataDir, DEFAULT_INTENTS_FILE_NAME),
    shipped: SHIPPED_INTENTS_FILE,
  });
  return { policy, intents };
}

/** `policy.file (--policy, CAESAR_POLICY__FILE)`: the setting, its flag and its env var. */
function keyName(path: readonly string[], flag: string): string {
  return `${path.join('.')} (${flag}, ${envVarName(path)})`;
}

async function seedOne(rule: FileRule): Promise<SeededFile> {
  const { file, shipped } = rule;
  if (file !== rule.defaultFile) {
    if (!(await fileExists(file))) {
      const next = `create it (\`cp ${shipped} ${file}\` starts from the shipped one), or unset it to use ${rule.defaultFile}`;
      throw new ConfigFileMissingError(rule.key, file, next);
    }
    return { file, copied: false, shipped };
  }
  // the data dir, for its owner only, as `caesar up` makes it
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const text = await readFile(shipped);
  try {
    // `wx`: an existing copy, edited or not, is never replaced. Mode 0600 whatever the
    // shipped file's (a read-only install would hand the operator a copy they cannot edit)
    await writeFile(file, text, { flag: 'wx', mode: 0o600 });
    return { file, copied: true, shipped };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return { file, copied: false, shipped };
    throw err;
  }
}
