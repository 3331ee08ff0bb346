import { isAbsolute } from 'node:path';

/**
 * How CAESAR tells a tool module's file path from an installed package's name (ADR 0055),
 * the same for `serve-tool --module` and `worker.modules`: a path starts with `.` or is
 * absolute (`./weather/tool.js`, `/opt/tools/weather.mjs`); anything else is a package name
 * (`caesar-tool-weather`, `@home/weather`), resolved from the working directory's
 * node_modules as Node resolves an import.
 */
export function isModulePath(specifier: string): boolean {
  return specifier.startsWith('.') || isAbsolute(specifier);
}
