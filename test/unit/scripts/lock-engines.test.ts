import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, test } from 'vitest';
import { ROOT } from '../../helpers/doc-blocks.js';

// Issue 29, point 3: `npm ci` on Node 20 warned `EBADENGINE … @nats-io/nuid@3.0.0 required:
// { node: '>= 22.x' }`, though CAESAR supports Node >= 20.19. package.json overrides the
// package to 2.0.3 (ADR 0073); this keeps any package of the lock from excluding the oldest
// Node CAESAR supports, whatever nats.js (or anything else) next pulls in.

interface LockPackage {
  version?: string;
  engines?: unknown;
}

const readJson = (file: string): unknown => JSON.parse(readFileSync(join(ROOT, file), 'utf8'));

/** The oldest Node CAESAR supports: the floor of package.json's `engines.node`. */
function oldestNode(): string {
  const range = (readJson('package.json') as { engines: { node: string } }).engines.node;
  const floor = semver.minVersion(range);
  if (floor === null) throw new Error(`package.json engines.node '${range}' has no floor`);
  return floor.version;
}

/** `<path>@<version> requires node <range>` for each package of a lock that excludes `node`. */
export function excluding(lock: { packages: Record<string, LockPackage> }, node: string): string[] {
  const out: string[] = [];
  for (const [path, pkg] of Object.entries(lock.packages)) {
    const engines = pkg.engines;
    if (typeof engines !== 'object' || engines === null || !('node' in engines)) continue;
    const range = String(engines.node);
    if (!semver.satisfies(node, range, { includePrerelease: true }))
      out.push(`${path}@${pkg.version ?? '?'} requires node ${range}`);
  }
  return out;
}

describe('package-lock.json', () => {
  const lock = readJson('package-lock.json') as { packages: Record<string, LockPackage> };

  test('the oldest supported Node is 20.19, as README.md and scripts/setup.mjs say', () => {
    expect(oldestNode()).toBe('20.19.0');
    expect(readFileSync(join(ROOT, 'scripts/setup.mjs'), 'utf8')).toContain('>= 20.19');
  });

  test('no package excludes it, so `npm ci` on Node 20 warns EBADENGINE for none', () => {
    expect(Object.keys(lock.packages).length).toBeGreaterThan(100);
    expect(excluding(lock, oldestNode()), 'see ADR 0073 for what to do').toEqual([]);
  });

  test('@nats-io/nuid is the version package.json overrides it to, everywhere (ADR 0073)', () => {
    const pkg = readJson('package.json') as { overrides: Record<string, unknown> };
    const pinned = pkg.overrides['@nats-io/nuid'];
    expect(pinned).toBe('2.0.3');
    const nuids = Object.entries(lock.packages).filter(([p]) => p.endsWith('/@nats-io/nuid'));
    expect(nuids.length).toBeGreaterThan(0);
    for (const [, found] of nuids) expect(found.version).toBe(pinned);
  });

  test('a lock with nuid 3.0.0 (node >= 22.x), as before the override, is refused', () => {
    const before = {
      packages: {
        '': {},
        'node_modules/@nats-io/nuid': { version: '3.0.0', engines: { node: '>= 22.x' } },
        'node_modules/zod': { version: '4.6.7' },
        'node_modules/x': { version: '1.0.0', engines: { node: '>=18' } },
      },
    };
    expect(excluding(before, '20.19.0')).toEqual([
      'node_modules/@nats-io/nuid@3.0.0 requires node >= 22.x',
    ]);
  });
});
