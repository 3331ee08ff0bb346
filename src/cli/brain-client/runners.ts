// The runners of the commands that talk to the brain's HTTP API (`chat`, `invoke`, `confirm`,
// `reject`), in one module: their declarations load it with import(), and the build bundles
// it, with zod and the config loader, into one chunk (scripts/bundle.mjs, ADR 0047). It reaches no server code: the guard in
// test/unit/cli/startup-imports.test.ts walks its imports.
export { runChat } from '../commands/chat/run.js';
export { runConfirm, runConfirmList } from '../commands/confirm.run.js';
export { runInvoke } from '../commands/invoke.run.js';
export { runJobsCancel, runJobsList, runJobsShow } from '../commands/jobs.run.js';
