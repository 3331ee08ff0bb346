import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { AUDIT_EVENT_CATALOGUE, AuditDecisionSchema } from '../../../src/audit/events.js';
import { openPolicyStore } from '../../../src/policy/index.js';
import { engineOf, tool } from './helpers.js';

/**
 * The brain audits policy events and decisions as they come. These tests hold the policy's side
 * of that contract against the audit catalogue (src/audit/events.ts).
 */
describe('policy output the audit log stores', () => {
  test('policy.reloaded and policy.reload_failed events are valid audit payloads', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'caesar-policy-audit-'));
    try {
      const file = join(dir, 'policy.yaml');
      await writeFile(file, 'allowed_tools: [calculator]\n');
      using store = await openPolicyStore({ path: file, watch: false, reloadSignal: null });
      const ok = await store.reload();
      await writeFile(file, 'allowed_tools:\n  - tool: calculator\n    confrim: true\n');
      const failed = await store.reload();
      expect(AUDIT_EVENT_CATALOGUE['policy.reloaded'].payload.safeParse(ok).success).toBe(true);
      expect(AUDIT_EVENT_CATALOGUE['policy.reload_failed'].payload.safeParse(failed).success).toBe(
        true,
      );
      expect([ok.type, failed.type]).toEqual(['policy.reloaded', 'policy.reload_failed']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a decision is stored with rule.id in the audit decision (rule: string | null)', () => {
    const { engine } = engineOf('allowed_tools: [calculator]\n');
    for (const call of [tool('calculator'), tool('shell')]) {
      const d = engine.evaluate(call);
      const record = { ...d, rule: d.rule.id };
      expect(AuditDecisionSchema.safeParse(record).success).toBe(true);
    }
  });
});
