import { BackendError } from '../../src/legion/index.js';
import type { CommandResult } from '../../src/legion/index.js';
import type { DnsLookupConfig, DnsLookupInput, DnsLookupOutput } from './schema.js';

/**
 * dig's argv for one lookup. The name and type go through dig's own flags for a value (`-q`,
 * `-t`), never as a bare positional, so even a name the schema let through could not be read
 * as a server (`@…`), an option (`+…`, `-…`) or a type.
 */
export function digArgs(input: DnsLookupInput, config: DnsLookupConfig): string[] {
  const server = config.server === undefined ? [] : [`@${config.server}`];
  const port = config.port === undefined ? [] : ['-p', String(config.port)];
  return [
    ...server,
    ...port,
    '+tries=1',
    '+time=3',
    '+noall',
    '+answer',
    '+comments',
    '-t',
    input.type,
    '-q',
    input.name,
  ];
}

/** dig's exit codes that mean the resolver could not be asked (no reply, network down). */
const NO_REPLY = 9;

/** dig's answer as the tool's output: the status from its header, the answer section's records. */
export function parseDig(
  { stdout, stderr, exitCode }: CommandResult,
  input: DnsLookupInput,
): DnsLookupOutput {
  if (exitCode === NO_REPLY) {
    throw new BackendError(`no DNS server answered: ${lastLine(stdout + stderr)}`);
  }
  if (exitCode !== 0) {
    throw new BackendError(`dig failed (exit ${exitCode}): ${lastLine(stderr || stdout)}`, {
      retryable: false,
    });
  }
  const status = /status: ([A-Z]+)/.exec(stdout)?.[1];
  if (status === undefined) throw new BackendError('dig printed no answer header');
  const answers = stdout
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith(';'))
    .slice(0, 100)
    .map((line) => {
      const [name = '', ttl = '0', , type = '', ...data] = line.split(/\s+/);
      return { name, ttl: Number(ttl), type, data: data.join(' ') };
    });
  return { name: input.name, type: input.type, status, answers };
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return (lines[lines.length - 1] ?? '').slice(0, 200);
}
