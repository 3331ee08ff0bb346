import { CaesarError, errorMessage } from '../../errors/index.js';
import { splitCallable } from '../../protocol/index.js';
import { runFile } from '../../process/index.js';
import { jsonRefusal, readJsonText } from '../../text/index.js';
import { MAIN } from './children.js';

/**
 * The tools of `worker.modules` (ADR 0055), by name, each with the module that defines it.
 * `caesar up` needs the names before it starts nats-server, to mint each tool's identity;
 * it asks `caesar legion serve-tool --module <m> --check` in a child process, so the
 * supervisor never runs an operator's module (nor loads the SDK and zod, ADR 0048), and the
 * module is checked with the same loader and the same errors as `serve-tool`.
 * Each module may take `importTimeoutMs` (`worker.import_timeout`) to import, as it will when
 * served.
 * @throws {Error} the check's own message (file missing, no export, a field at fault, a
 *   shipped tool's name, an import that did not finish), or `tool_module_clash` when two
 *   modules define one tool
 */
export async function moduleTools(
  modules: readonly string[],
  importTimeoutMs: number,
): Promise<Map<string, string>> {
  const checked = await Promise.all(
    modules.map(async (m) => [m, await check(m, importTimeoutMs)] as const),
  );
  const tools = new Map<string, string>();
  for (const [module, names] of checked) {
    // a tool with actions is one worker serving them all, under the tool's identity (ADR 0092)
    for (const tool of new Set(names.map((n) => splitCallable(n).tool))) {
      const other = tools.get(tool);
      if (other !== undefined) {
        const clash = `which module ${other} defines too: rename one of them`;
        throw new CaesarError(
          'tool_module_clash',
          `worker.modules: ${errorMessage('tool_module_clash', { module, tool, clash })}`,
        );
      }
      tools.set(tool, module);
    }
  }
  return tools;
}

/**
 * How long one module's check may take beyond its import: starting the CLI and checking the
 * schemas, on a busy machine. The import's own bound is the check's to report.
 */
const CHECK_MARGIN_MS = 30_000;

async function check(module: string, importTimeoutMs: number): Promise<string[]> {
  const timeout = ['--import-timeout', `${importTimeoutMs}ms`];
  const args = [MAIN, 'legion', 'serve-tool', '--module', module, '--check', ...timeout];
  try {
    const { stdout } = await runFile(process.execPath, args, {
      timeoutMs: importTimeoutMs + CHECK_MARGIN_MS,
    });
    const line = stdout.trim().split('\n').at(-1) ?? '';
    const read = readJsonText(line);
    if (!read.ok)
      throw new Error(`the check of ${module} printed a last line that is ${jsonRefusal(read)}`);
    return (read.value as { tools: string[] }).tools;
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim().replace(/^caesar: /, '');
    throw new Error(`worker.modules: ${stderr || (err as Error).message}`, { cause: err });
  }
}
