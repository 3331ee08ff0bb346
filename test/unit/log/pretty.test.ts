import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { createLogger } from '../../../src/log/index.js';
import { MAX_PRETTY_LINE_CHARS, prettyText, resolveLogFormat } from '../../../src/log/pretty.js';
import { REDACTED } from '../../../src/text/index.js';

// Issue 29, point 9: hand-run parts printed raw JSON on a terminal. Readable lines are made
// from the record the JSON log writes, so redaction has run; each is escaped and bounded.

/** Retitles the terminal (OSC 0 ended by BEL), recolours it, forges a line. */
const HOSTILE = '\u001b]0;pwned\u0007\u001b[31mred\nforged: ok\u009b2J\u202eevil';
const RAW_CONTROL =
  // eslint-disable-next-line no-control-regex -- the test looks for control characters
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** A stream that keeps what is written; `isTTY` makes it look like a terminal. */
function sink(isTTY = false): { stream: Writable & { isTTY?: boolean }; text: () => string } {
  const chunks: string[] = [];
  const stream: Writable & { isTTY?: boolean } = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  if (isTTY) stream.isTTY = true;
  return { stream, text: () => chunks.join('') };
}

describe('log.format', () => {
  test('auto is pretty on a terminal and JSON elsewhere; pretty and json force one', () => {
    expect(resolveLogFormat('auto', sink(true).stream)).toBe('pretty');
    expect(resolveLogFormat('auto', sink(false).stream)).toBe('json');
    expect(resolveLogFormat(undefined, sink(true).stream)).toBe('pretty');
    expect(resolveLogFormat('json', sink(true).stream)).toBe('json');
    expect(resolveLogFormat('pretty', sink(false).stream)).toBe('pretty');
  });

  test('on a terminal a record is one readable line: time, level, component, message, fields', () => {
    const out = sink(true);
    const log = createLogger({ destination: out.stream, bindings: { component: 'worker' } });
    log.warn({ tool: 'calculator', attempt: 2 }, 'backend slow');
    const lines = out.text().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('');
    expect(lines[0]).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: worker: backend slow \{"tool":"calculator","attempt":2\}$/,
    );
  });

  test('piped, the same record stays one JSON object', () => {
    const out = sink(false);
    createLogger({ destination: out.stream, bindings: { component: 'worker' } }).warn(
      { tool: 'calculator' },
      'backend slow',
    );
    const record = JSON.parse(out.text()) as Record<string, unknown>;
    expect(record).toMatchObject({ level: 40, component: 'worker', msg: 'backend slow' });
  });
});

describe('pretty output', () => {
  test('secrets are redacted before the line is formatted, in fields, errors and child bindings', () => {
    const out = sink(true);
    const log = createLogger({ destination: out.stream, format: 'pretty' });
    const err = Object.assign(new Error('refused'), { api_key: 'sk-live-abcdef0123456789' });
    log
      .child({ token: 'tok-child-0123456789' })
      .error({ password: 'hunter2-secret', nested: { api_key: 'sk-nested-0123456789' }, err }, 'x');
    const text = out.text();
    expect(text).not.toMatch(/hunter2-secret|sk-nested|sk-live|tok-child/);
    expect(text).toContain(`"password":"${REDACTED}"`);
    expect(text.split('\n').filter((l) => l !== '')).toHaveLength(1);
  });

  test('a message or field holding terminal controls reaches the terminal escaped, on one line', () => {
    const out = sink(true);
    createLogger({ destination: out.stream, bindings: { component: HOSTILE } }).warn(
      { note: '\u001b]0;pwned\u0007', host: HOSTILE },
      HOSTILE,
    );
    const text = out.text();
    expect(text.endsWith('\n')).toBe(true);
    const line = text.slice(0, -1);
    expect(line).not.toMatch(RAW_CONTROL);
    expect(line.split('\n')).toHaveLength(1);
    // the message as the escaped text a person can read
    expect(line).toContain('\\u001b]0;pwned\\u0007\\u001b[31mred\\nforged: ok\\u009b2J\\u202eevil');
    // the field: JSON's own escape, then the backslash shown as it is
    expect(line).toContain('"note":"\\u001b]0;pwned\\u0007"');
  });

  test('a line is bounded, saying how much was cut and where the whole record is', () => {
    const line = prettyText(JSON.stringify({ level: 30, time: 0, msg: 'x'.repeat(5000) }));
    expect(line.length).toBeLessThan(MAX_PRETTY_LINE_CHARS + 100);
    expect(line).toMatch(
      /… \(\d+ more characters; CAESAR_LOG__FORMAT=json writes the whole record\)$/,
    );
  });

  test('a line that is not a JSON record comes back escaped as it is', () => {
    expect(prettyText('plain \u001b[2J text')).toBe('plain \\u001b[2J text');
    expect(prettyText('{not json')).toBe('{not json');
  });

  test("a child's line the JSON ladder refuses (a prototype key, too deep) is shown as text", () => {
    const poisoned = '{"level":30,"time":0,"msg":"hi","__proto__":{"msg":"forged"}}';
    expect(prettyText(poisoned)).toBe(poisoned);
    const deep = `{"level":30,"time":0,"msg":"hi","a":${'['.repeat(64)}${']'.repeat(64)}}`;
    expect(prettyText(deep)).toBe(deep.slice(0, MAX_PRETTY_LINE_CHARS));
  });

  test('a record the command prints readable itself is left out of pretty output only', () => {
    const hide = (r: Record<string, unknown>) => r.type === 'shown.elsewhere';
    const pretty = sink(true);
    const json = sink(false);
    for (const out of [pretty, json]) {
      const log = createLogger({ destination: out.stream, hideWhenPretty: hide });
      log.warn({ type: 'shown.elsewhere' }, 'twin');
      log.warn('kept');
    }
    expect(pretty.text()).not.toContain('twin');
    expect(pretty.text()).toContain('kept');
    expect(json.text()).toContain('twin');
  });
});
