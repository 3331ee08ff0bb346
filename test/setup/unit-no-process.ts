// Setup file of the `unit` project (vitest.config.ts): a unit test starts no process and
// opens no listening socket (issue 30). Those belong in test/integration, which runs them
// against real servers. Every way to start a child or listen throws here, naming the rule,
// so a unit test that tries fails at once instead of slowing the suite down.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

/** The error every forbidden call throws: what was called and where the test belongs. */
export function unitRuleError(what: string): Error {
  return new Error(
    `${what} in a unit test: test/unit starts no process and opens no listening socket; ` +
      'move the test to test/integration (same subpath), see CONTRIBUTING.md, "Tests".',
  );
}

const CHILD_STARTERS = [
  'spawn',
  'spawnSync',
  'fork',
  'exec',
  'execSync',
  'execFile',
  'execFileSync',
] as const;

for (const name of CHILD_STARTERS) {
  Object.defineProperty(childProcess, name, {
    configurable: true,
    writable: true,
    value: () => {
      throw unitRuleError(`child_process.${name}()`);
    },
  });
}
net.Server.prototype.listen = function listen(): never {
  throw unitRuleError('net.Server.listen()');
};
// Named ESM imports (`import { spawn } from 'node:child_process'`) read the live bindings
// only after this sync.
syncBuiltinESMExports();
