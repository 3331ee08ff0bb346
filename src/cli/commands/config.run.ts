import {
  ConfigError,
  formatDuration,
  loadConfigWithSources,
  redactSettings,
  type ConfigSetting,
} from '../../config/index.js';
import { terminal } from '../program/terminal.js';

/** Exit codes of `caesar config show`: ok, a configuration that does not load. */
const EXIT_OK = 0;
const EXIT_CONFIG = 2;

/** Where command output goes; tests pass collectors, the CLI passes `terminal` (ADR 0064). */
interface ConfigCliIo {
  out(line: string): void;
  err(line: string): void;
  /** Environment for the config loader. @default process.env */
  env?: Record<string, string | undefined>;
  /** Directory relative paths (and `./caesar.yaml`) are resolved against. @default process.cwd() */
  cwd?: string;
}

export interface ConfigShowOptions {
  /** caesar.yaml to read (default: `$CAESAR_CONFIG`, then `./caesar.yaml`). */
  config?: string;
  /** Overrides `data_dir`, as `--data-dir` does for the other commands. */
  dataDir?: string;
  json?: boolean;
}

/** How the loader names values set by this command's flags. */
const FLAG_SOURCE = 'flag';
const NOT_SET = '(not set)';

const consoleIo: ConfigCliIo = { out: terminal.out, err: terminal.err };

/**
 * `caesar config show`: every effective setting with its source, secrets masked. Text
 * lines `key.path = value   # source`, one block per section; `--json` prints
 * `{"<path>": {"value": ..., "source": "..."}}`. Durations are shown as `30s`, `2m`, so
 * every value reads back as caesar.yaml would take it.
 */
export async function runConfigShow(
  opts: ConfigShowOptions,
  io: ConfigCliIo = consoleIo,
): Promise<number> {
  let loaded;
  try {
    loaded = await loadConfigWithSources({
      ...(opts.config === undefined ? {} : { file: opts.config }),
      ...(io.env === undefined ? {} : { env: io.env }),
      ...(io.cwd === undefined ? {} : { cwd: io.cwd }),
      ...(opts.dataDir ? { overrides: { data_dir: opts.dataDir } } : {}),
      overridesSource: FLAG_SOURCE,
    });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    io.err(err.message);
    return EXIT_CONFIG;
  }
  const settings = redactSettings(loaded.settings);
  if (opts.json) {
    const out: Record<string, { value: unknown; source: string }> = {};
    for (const [path, s] of settings) out[path] = { value: jsonValue(s), source: s.source };
    io.out(JSON.stringify(out, null, 2));
  } else {
    io.out(`# effective configuration; config file: ${loaded.config.configFile ?? 'none'}`);
    for (const block of sectionBlocks(settings)) {
      io.out('');
      block.forEach((line) => io.out(line));
    }
  }
  return EXIT_OK;
}

/** Lines per top-level section, with the `#` of each block in one column. */
function sectionBlocks(settings: ReadonlyMap<string, ConfigSetting>): string[][] {
  const sections = new Map<string, [string, string][]>();
  for (const [path, s] of settings) {
    // Top-level keys (`data_dir`) share one block; `tools` with no tool is its section.
    const topLevelKey = !path.includes('.') && s.kind !== undefined;
    const section = topLevelKey ? '' : (path.split('.')[0] ?? '');
    const rows = sections.get(section) ?? [];
    rows.push([`${path} = ${textValue(s)}`, s.source]);
    sections.set(section, rows);
  }
  return [...sections.values()].map((rows) => {
    const width = Math.max(...rows.map(([left]) => left.length));
    return rows.map(([left, source]) => `${left.padEnd(width)}   # ${source}`);
  });
}

/** The value as caesar.yaml takes it: durations as `30s`, URL lists comma-joined. */
function textValue(s: ConfigSetting): string {
  const v = jsonValue(s);
  if (v === null) return NOT_SET;
  if (s.kind === 'url-list' && Array.isArray(v)) return v.join(',');
  if (typeof v !== 'string') return JSON.stringify(v);
  return v === '' || v !== v.trim() || /\s#|[\n\r]/.test(v) ? JSON.stringify(v) : v;
}

function jsonValue(s: ConfigSetting): unknown {
  if (s.value === undefined) return null;
  if (s.kind === 'duration' && typeof s.value === 'number') return formatDuration(s.value);
  return s.value;
}
