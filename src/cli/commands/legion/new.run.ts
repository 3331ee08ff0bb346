import { lstat, mkdir, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { CaesarError, errorMessage } from '../../../errors/index.js';
import { suggestToolName, TOOL_NAME_PATTERN } from '../../../protocol/index.js';
import { EXIT_USAGE } from '../../program/exit.js';
import { takenToolName } from './own-tool-name.js';
import { scaffoldFiles } from './scaffold.js';
import { terminal } from '../../program/terminal.js';

/** `caesar legion new`'s flags. */
export interface NewFlags {
  dir?: string;
  /** A command tool run in a bubblewrap sandbox (ADR 0097). */
  sandbox?: boolean;
}

/**
 * Writes a new tool's files into `--dir` (default `./<name>`), refusing a name that is not a
 * tool name, or that serve-tool would refuse (a shipped tool's), with one to try, and any
 * file that already exists: nothing is written unless every file is new. Prints what it
 * wrote and the next steps.
 */
export async function newTool(name: string, flags: NewFlags): Promise<number> {
  if (!TOOL_NAME_PATTERN.test(name)) {
    const message = errorMessage('tool_name_invalid', {
      name,
      rule: 'a tool name is a lower-case letter, then lower-case letters, digits or _, at most 64 (^[a-z][a-z0-9_]{0,63}$)',
      suggestion: suggestToolName(name),
    });
    terminal.err(`caesar legion new: ${message}`);
    return EXIT_USAGE;
  }
  const taken = takenToolName(name);
  if (taken !== undefined) {
    const message = errorMessage('tool_name_taken', { name, ...taken });
    terminal.err(`caesar legion new: ${message}`);
    return EXIT_USAGE;
  }
  const dir = resolve(flags.dir ?? name);
  const files = scaffoldFiles(name, { sandbox: flags.sandbox === true });
  for (const file of Object.keys(files)) await refuseExisting(join(dir, file));
  await mkdir(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    await writeFile(join(dir, file), text, { flag: 'wx' });
  }
  const shown = relative(process.cwd(), dir) || '.';
  const at = shown.startsWith('.') || shown.startsWith('/') ? shown : `./${shown}`;
  terminal.out(`wrote ${at}/: ${Object.keys(files).join(', ')}`);
  terminal.out(`test it:   (cd ${at} && npm test)`);
  terminal.out(`check it:  caesar legion serve-tool --module ${at} --check`);
  terminal.out(
    `serve it:  caesar legion serve-tool --module ${at}  (or worker.modules in caesar.yaml)`,
  );
  terminal.out(
    `grant it:  add "- tool: ${name}" under allowed_tools in policy.yaml (docs/legion.md)`,
  );
  terminal.out(`list it:   caesar catalog add ${at}  (caesar up then starts it too)`);
  return 0;
}

/** @throws {CaesarError} `tool_scaffold_exists` when `path` is there (a file, a link, anything) */
async function refuseExisting(path: string): Promise<void> {
  const found = await lstat(path).then(
    () => true,
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return false;
      throw err;
    },
  );
  if (found) {
    throw new CaesarError('tool_scaffold_exists', errorMessage('tool_scaffold_exists', { path }));
  }
}
