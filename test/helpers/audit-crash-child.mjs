// Crash-test child: appends from many concurrent callers and prints `<seq> <decision_id>` on
// stdout for every append whose promise resolved (pipes are written synchronously on Linux,
// so a printed line means "resolved before the kill"). The parent SIGKILLs it at a random
// moment. Usage: node --import ./audit-ts-register.mjs audit-crash-child.mjs <db> <callers> <round>

const { openAuditLog } = await import('../../src/audit/index.ts');

const [db, callersArg, round] = process.argv.slice(2);
const callers = Number(callersArg);
const log = openAuditLog({ path: db, retention: { days: 0, intervalMs: 0 } });

const big = 'x'.repeat(70_000);
function event(caller, i) {
  const decisionId = `r${round}-c${caller}-i${i}`;
  const payload = {
    input: { caller, i, note: i % 97 === 0 ? big : `call ${i}`, password: 'hunter2' },
    decision: {
      allowed: true,
      reason: 'crash test',
      rule: 'allowed_tools[0]',
      policy_sha256: null,
    },
  };
  return { type: 'tool.called', actor: 'crash-test', tool: 'calculator', decisionId, payload };
}

async function caller(k) {
  for (let i = 0; ; i++) {
    const e = event(k, i);
    const { seq } = await log.append(e);
    process.stdout.write(`${seq} ${e.decisionId}\n`);
  }
}

process.stdout.write('ready\n');
await Promise.all(Array.from({ length: callers }, (_, k) => caller(k)));
