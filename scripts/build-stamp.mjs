// The build's stamp (ADR 0107): scripts/setup.mjs skips tsc and the bundle when dist/ was
// built by it from exactly the sources there are now. An incremental tsc that has nothing to
// do still parses all 1,500 files it sees (4-5 s of a 2-core machine, half a minute on a
// Raspberry Pi), and the bundle runs in full, before every `npm start`, `npm test` and
// `npm run bench`.
//
// The stamp, dist/.build-stamp.json, holds two digests taken after a build that succeeded:
// - the inputs': the path and content of every file tsconfig.build.json includes, the two
//   tsconfigs, package.json, the lock and node_modules' own copy of it (what is installed:
//   tsc and every bundled package), and the bundle script;
// - the outputs': the path, size and modification time of every file under dist/ but the
//   stamp, so a dist/ that anything else wrote to or removed from is built again.
// Content, not dates, for the inputs: a checkout, a copy or a restore gives a file a new date
// with the same bytes, or old dates to new bytes. Anything unreadable means "build".
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** The stamp's place, in dist/. */
export const STAMP_FILE = join('dist', '.build-stamp.json');
/** What a stamp of another format is not. */
const FORMAT = 1;
/** The inputs beside tsconfig.build.json's `include`, relative to the root. */
const MORE_INPUTS = [
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
  join('node_modules', '.package-lock.json'),
  join('scripts', 'bundle.mjs'),
];

/** Every file below `dir` (itself, when a file), as paths relative to `root`, sorted. */
function filesUnder(root, dir) {
  const full = join(root, dir);
  if (!statSync(full).isDirectory()) return [dir];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath ?? e.path, e.name)))
    .sort();
}

/** The folders and files tsconfig.build.json compiles (its `include`), relative to `root`. */
function buildIncludes(root) {
  const config = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8'));
  if (!Array.isArray(config.include) || !config.include.every((p) => typeof p === 'string')) {
    throw new Error('tsconfig.build.json: include is not a list of paths');
  }
  return config.include.map((p) => p.split('/').join(sep));
}

/** The inputs' digest, and how many files it covers. Throws when one cannot be read. */
export function inputsDigest(root) {
  const hash = createHash('sha256');
  let files = 0;
  for (const path of [...buildIncludes(root).flatMap((d) => filesUnder(root, d)), ...MORE_INPUTS]) {
    const bytes = readFileSync(join(root, path));
    hash.update(`${path.split(sep).join('/')}\0${bytes.length}\0`).update(bytes);
    files += 1;
  }
  return { digest: hash.digest('hex'), files };
}

/** The outputs' digest: every file under dist/ but the stamp, by path, size and date. */
export function outputsDigest(root) {
  const hash = createHash('sha256');
  for (const path of filesUnder(root, 'dist')) {
    if (path === STAMP_FILE) continue;
    const s = statSync(join(root, path));
    hash.update(`${path.split(sep).join('/')}\0${s.size}\0${s.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

/**
 * Whether dist/ holds the build of the sources as they are now: the number of source files
 * when it does, `undefined` when a build is due (no stamp, another format, a changed input or
 * output, or anything that could not be read).
 */
export function upToDate(root) {
  try {
    const stamp = JSON.parse(readFileSync(join(root, STAMP_FILE), 'utf8'));
    if (stamp?.format !== FORMAT) return undefined;
    const inputs = inputsDigest(root);
    if (stamp.inputs !== inputs.digest || stamp.outputs !== outputsDigest(root)) return undefined;
    return inputs.files;
  } catch {
    return undefined;
  }
}

/** Forgets the last build: before a build starts, so a build cut short is never taken as done. */
export function forget(root) {
  rmSync(join(root, STAMP_FILE), { force: true });
}

/** Records that dist/ is the build of the sources as they are now (after a build succeeded). */
export function record(root) {
  const stamp = { format: FORMAT, inputs: inputsDigest(root).digest, outputs: outputsDigest(root) };
  writeFileSync(join(root, STAMP_FILE), `${JSON.stringify(stamp)}\n`);
}
