import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';

/** The parts of a compose service the deploy tests read. */
export interface ComposeService {
  image?: string;
  build?: unknown;
  entrypoint?: unknown;
  command?: unknown;
  environment?: Record<string, unknown> | string[];
  volumes?: string[];
  ports?: string[];
  secrets?: (string | { source: string; target?: string })[];
  profiles?: string[];
  healthcheck?: { test?: unknown };
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  secrets?: Record<string, { file?: string }>;
}

export const COMPOSE_FILE = new URL('../../docker-compose.yml', import.meta.url);

/**
 * Compose's variable interpolation: `$$`, `$VAR`, `${VAR}`, `${VAR:-default}`,
 * `${VAR-default}`, `${VAR:?message}` and `${VAR?message}` (the forms docker-compose.yml may
 * use); a required variable that is missing throws with its message, as compose does.
 */
export function interpolate(text: string, vars: Readonly<Record<string, string>>): string {
  return text.replace(
    /\$(?:(\$)|([A-Za-z_]\w*)|\{([A-Za-z_]\w*)(?:(:?[-?])([^}]*))?\})/g,
    (_, dollar?: string, bare?: string, name?: string, op?: string, arg?: string) => {
      if (dollar !== undefined) return '$';
      const key = bare ?? name!;
      const value = vars[key];
      const unset = op?.startsWith(':') === true ? !value : value === undefined;
      if (!unset || op === undefined) return value ?? '';
      if (op.endsWith('-')) return arg ?? '';
      throw new Error(`required variable ${key} is missing a value: ${arg ?? ''}`);
    },
  );
}

/** docker-compose.yml as compose reads it with these variables (the `.env` file's). */
export function loadCompose(vars: Readonly<Record<string, string>>): ComposeFile {
  // js-yaml's default schema reads merge keys (`<<: *defaults`), as Docker Compose does.
  return load(interpolate(readFileSync(COMPOSE_FILE, 'utf8'), vars)) as ComposeFile;
}

/** A service's environment as name -> value. */
export function envOf(service: ComposeService): Record<string, string> {
  const env = service.environment ?? {};
  const pairs = Array.isArray(env)
    ? env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)])
    : Object.entries(env).map(([k, v]) => [k, String(v)]);
  return Object.fromEntries(pairs) as Record<string, string>;
}

/** A service's command, which must be a list of strings (the image's ENTRYPOINT runs it). */
export function commandOf(name: string, service: ComposeService): string[] {
  const { command } = service;
  if (!Array.isArray(command) || !command.every((c) => typeof c === 'string')) {
    throw new Error(`service ${name}: command must be a list of strings, got ${String(command)}`);
  }
  return command;
}

/** The names of the secrets a service is given. */
export function secretsOf(service: ComposeService): string[] {
  return (service.secrets ?? []).map((s) => (typeof s === 'string' ? s : s.source));
}
