import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { watchIncludeTags } from '../../../../src/brain/capabilities/include-tags-check.js';
import { createLogger } from '../../../../src/log/index.js';

type Tool = { name: string; spec: { tags: string[] } };

/** A registry as the check reads it: tools set by the test, sweeps it emits. */
class Sweeps extends EventEmitter<{ sweep: [] }> {
  tools: Tool[] = [];
  sweep(...tools: Tool[]): void {
    this.tools = tools;
    this.emit('sweep');
  }
}
const registry = (s: Sweeps) => ({
  tools: () => s.tools,
  on: (e: 'sweep', f: () => void) => s.on(e, f),
  off: (e: 'sweep', f: () => void) => s.off(e, f),
});

const calculator = { name: 'calculator', spec: { tags: ['tool', 'math'] } };
const lights = { name: 'call_service', spec: { tags: ['tool', 'home', 'home_assistant'] } };
const search = { name: 'web_search', spec: { tags: ['tool', 'web', 'network'] } };

function warnings() {
  const out = new PassThrough();
  const lines: { msg: string; key?: string; tags?: string[] }[] = [];
  out.on('data', (b: Buffer) => {
    for (const l of b.toString().split('\n')) if (l) lines.push(JSON.parse(l) as never);
  });
  return { logger: createLogger({ destination: out, format: 'json', level: 'warn' }), lines };
}
const flushed = () => new Promise((r) => setImmediate(r));

describe('an llm.include_tags list that matches no tool', () => {
  test('is said once the tools are the same over two sweeps, naming the key and the tags', async () => {
    const s = new Sweeps();
    const { logger, lines } = warnings();
    watchIncludeTags(registry(s), { includeTags: ['home', 'web'] }, logger);
    s.sweep(calculator);
    s.sweep(calculator, lights);
    s.sweep(calculator, lights, search);
    await flushed();
    expect(lines).toEqual([]);
    s.sweep(search, lights, calculator);
    s.sweep(search, lights, calculator);
    await flushed();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ key: 'llm.include_tags', tags: ['home', 'web'] });
    expect(lines[0]?.msg).toContain(
      'llm.include_tags [home, web] matches none of the 3 tools discovered ' +
        '(calculator, call_service, web_search)',
    );
    expect(s.listenerCount('sweep')).toBe(0);
  });

  test('stops without a word once a tool carries every listed tag', async () => {
    const s = new Sweeps();
    const { logger, lines } = warnings();
    watchIncludeTags(registry(s), { includeTags: ['tool', 'home'] }, logger);
    s.sweep(calculator);
    s.sweep(calculator, lights);
    await flushed();
    expect(lines).toEqual([]);
    expect(s.listenerCount('sweep')).toBe(0);
  });

  test('no registry tools yet, no include list: nothing is said', async () => {
    const s = new Sweeps();
    const { logger, lines } = warnings();
    watchIncludeTags(registry(s), { includeTags: ['home'] }, logger);
    s.sweep();
    s.sweep();
    const none = new Sweeps();
    watchIncludeTags(registry(none), { excludeTags: ['home'] }, logger);
    none.sweep(calculator);
    none.sweep(calculator);
    await flushed();
    expect(lines).toEqual([]);
    expect(none.listenerCount('sweep')).toBe(0);
  });
});
