import { execFile, execFileSync, fork, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { expect, test } from 'vitest';

// test/setup/unit-no-process.ts, the unit project's setup file, keeps test/unit from
// starting processes or listening (issue 30). Without it every call below would succeed.

test.each([
  ['spawn', () => spawn(process.execPath, ['-e', ''])],
  ['spawnSync', () => spawnSync(process.execPath, ['-e', ''])],
  ['fork', () => fork('-e')],
  ['execFile', () => execFile(process.execPath, ['-e', ''])],
  ['execFileSync', () => execFileSync(process.execPath, ['-e', ''])],
])('child_process.%s() throws in a unit test, naming where the test belongs', (name, start) => {
  expect(start).toThrow(`child_process.${name}() in a unit test`);
  expect(start).toThrow('move the test to test/integration');
});

test('listening on a socket throws in a unit test', () => {
  const server = createServer();
  expect(() => server.listen(0, '127.0.0.1')).toThrow('net.Server.listen() in a unit test');
});
