import { createReadStream } from 'node:fs';
import { CALLABLE_NAME_PATTERN } from '../../protocol/index.js';
import { jsonRefusal, readJsonText } from '../../text/json-text.js';
import {
  consoleIo,
  EXIT_CONFIRMATION,
  EXIT_FAILED,
  EXIT_OK,
  EXIT_USAGE,
  printReport,
  withClient,
  type ApiCliIo,
} from '../brain-client/command.js';
import type { ApiFlags } from '../program/flags.js';

/** `caesar invoke <tool> '<json>'`: one tool call through the brain's policy gate. */

/** Largest tool input read from a file or stdin (the brain's default `api.body_limit`). */
const MAX_INPUT_BYTES = 1024 * 1024;

/** `caesar invoke`'s flags. */
export interface InvokeFlags extends ApiFlags {
  inputFile?: string;
  json?: boolean;
}

/** `caesar invoke`: exit 0 when the call ran, 3 when it waits for a human, 1 otherwise. */
export async function runInvoke(
  tool: string,
  json: string | undefined,
  flags: InvokeFlags,
  io: ApiCliIo = consoleIo,
): Promise<number> {
  const usage = (msg: string) => (io.err(`caesar invoke: ${msg}`), EXIT_USAGE);
  if (!CALLABLE_NAME_PATTERN.test(tool)) return usage(`'${tool}' is not a tool name`);
  if (json !== undefined && flags.inputFile !== undefined) {
    return usage('give the input as an argument or with --input-file, not both');
  }
  let input: unknown;
  try {
    input = await readInput(json, flags.inputFile, io);
  } catch (err) {
    return usage((err as Error).message);
  }
  return withClient('invoke', flags, io, async (client) => {
    const report = await client.invoke(tool, input);
    printReport(report, flags, io);
    if (report.outcome === 'ok') return EXIT_OK;
    return report.outcome === 'confirmation_required' ? EXIT_CONFIRMATION : EXIT_FAILED;
  });
}

/** The tool input: the argument, a file, or stdin (`-`); `{}` when none is given. */
async function readInput(
  json: string | undefined,
  file: string | undefined,
  io: ApiCliIo,
): Promise<unknown> {
  let text: string;
  let from: string;
  if (json !== undefined && json !== '-') {
    [text, from] = [json, 'the input argument'];
  } else if (json === '-' || file === '-') {
    [text, from] = [await readAll(io.input ?? process.stdin, 'stdin'), 'stdin'];
  } else if (file !== undefined) {
    [text, from] = [await readAll(createReadStream(file), file), file];
  } else {
    return {};
  }
  const read = readJsonText(text);
  if (!read.ok) throw new Error(`${from} is ${jsonRefusal(read)}`);
  return read.value;
}

async function readAll(stream: NodeJS.ReadableStream, name: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buf.byteLength;
      if (size > MAX_INPUT_BYTES)
        throw new Error(`${name} holds more than ${MAX_INPUT_BYTES} bytes`);
      chunks.push(buf);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === undefined) throw err;
    throw new Error(`cannot read ${name} (${code})`, { cause: err });
  }
  return Buffer.concat(chunks).toString('utf8');
}
