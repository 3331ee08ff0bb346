import { seedDefaultFiles, type CaesarConfig } from '../../config/index.js';
import { statusLine } from '../stack/status.js';

/**
 * `caesar up` and `caesar brain`: the policy and intents files, copied from the shipped ones
 * into the data dir on first start (ADR 0056), and one line each saying which file the brain
 * reads, and when it was just copied, that the copy is the one to edit.
 * @throws {ConfigFileMissingError} when a file set by flag, env or caesar.yaml is missing.
 */
export async function seedFiles(config: CaesarConfig, say: (line: string) => void): Promise<void> {
  const seeded = await seedDefaultFiles(config);
  for (const [name, f] of [
    ['policy', seeded.policy],
    ['intents', seeded.intents],
  ] as const) {
    const how = f.copied ? ` (copied from the shipped ${f.shipped}; edit this copy)` : '';
    say(statusLine(name, `${f.file}${how}`));
  }
}
