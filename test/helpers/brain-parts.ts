import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';
import { openAuditLog, type AuditLog } from '../../src/audit/index.js';
import { openConversationStore } from '../../src/brain/conversations/index.js';
import type { ConversationStore } from '../../src/brain/conversations/store.js';
import { createDispatcher } from '../../src/brain/dispatch/index.js';
import { ToolGateway } from '../../src/brain/gateway/index.js';
import { startRegistry, type Registry } from '../../src/brain/registry/index.js';
import { serveTools, type ToolDefinition, type ToolWorker } from '../../src/legion/index.js';
import { openPolicyStore, type PolicyStore } from '../../src/policy/index.js';
import { startNats, type TestNats } from './nats.js';
import { waitFor } from './wait.js';

/** The in-process parts of a brain around real NATS, SQLite files and a policy file. */
export interface BrainParts extends AsyncDisposable {
  readonly dir: string;
  readonly nats: TestNats;
  /** The brain's connection (the workers have their own). */
  readonly nc: NatsConnection;
  readonly audit: AuditLog;
  readonly policy: PolicyStore;
  readonly registry: Registry;
  readonly gateway: ToolGateway;
  readonly conversations: ConversationStore;
  readonly worker: ToolWorker;
  close(): Promise<void>;
}

export interface BrainPartsOptions {
  /** The policy file's text. */
  policy: string;
  /** Served over NATS by one worker; the registry must know them all before this resolves. */
  tools: ToolDefinition[];
  /** Config sections for the tools (`serveTools({config})`). */
  toolConfig?: Record<string, unknown>;
  /** @default 5000 */
  callTimeoutMs?: number;
}

/** Runs `stops` last first, each even when an earlier one throws. */
function closer(stops: (() => Promise<void> | void)[]): () => Promise<void> {
  return async () => {
    for (const stop of stops.splice(0).reverse()) {
      try {
        await stop();
      } catch {
        // keep stopping the rest
      }
    }
  };
}

/**
 * The slow half of the parts, started once per test file (`beforeAll`): a real nats-server,
 * the tools served by one worker, and the registry that has learnt them. `parts()` opens the
 * cheap half on it afresh for each test (`beforeEach`), so no test sees another's audit rows,
 * conversations, confirmations or policy edits (issue 30: one stack per file).
 */
export interface BrainStack extends AsyncDisposable {
  readonly nats: TestNats;
  readonly nc: NatsConnection;
  readonly registry: Registry;
  readonly worker: ToolWorker;
  /** A fresh policy file, audit log, conversation store and gateway over this stack. */
  parts(): Promise<BrainParts>;
  close(): Promise<void>;
}

export async function startBrainStack(o: BrainPartsOptions): Promise<BrainStack> {
  const stops: (() => Promise<void> | void)[] = [];
  const close = closer(stops);
  try {
    const nats = await startNats();
    stops.push(() => nats.stop());
    const nc = await nats.connect();
    const registry = await startRegistry({ nc });
    stops.push(() => registry.close());
    const worker = await serveTools(o.tools, {
      nc: await nats.connect(),
      host: 'test',
      ...(o.toolConfig === undefined ? {} : { config: o.toolConfig }),
    });
    stops.push(() => worker.stop());
    await waitFor(
      () => registry.tools().length === o.tools.length,
      `the registry to learn ${o.tools.length} tool(s)`,
    );
    const stack = { nats, nc, registry, worker };
    return {
      ...stack,
      parts: () => openParts(stack, o),
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** The per-test half: temp files for the policy, the audit log and conversations, a gateway. */
async function openParts(
  stack: Pick<BrainStack, 'nats' | 'nc' | 'registry' | 'worker'>,
  o: BrainPartsOptions,
): Promise<BrainParts> {
  const dir = mkdtempSync(join(tmpdir(), 'caesar-parts-'));
  writeFileSync(join(dir, 'policy.yaml'), o.policy);
  const stops: (() => Promise<void> | void)[] = [
    () => rmSync(dir, { recursive: true, force: true }),
  ];
  const close = closer(stops);
  try {
    const audit = openAuditLog({ path: join(dir, 'audit.db') });
    stops.push(() => audit.close());
    const policy = await openPolicyStore({ path: join(dir, 'policy.yaml'), reloadSignal: null });
    stops.push(() => policy.close());
    const gateway = new ToolGateway({
      tools: stack.registry,
      policy,
      audit,
      dispatcher: createDispatcher({ nc: stack.nc }),
      callTimeoutMs: o.callTimeoutMs ?? 5000,
      confirmationTtlMs: 60_000,
    });
    stops.push(() => gateway.close());
    const conversations = openConversationStore({
      file: join(dir, 'conv.db'),
      historyLimit: 40,
    });
    stops.push(() => conversations.close());
    return {
      ...stack,
      dir,
      audit,
      policy,
      gateway,
      conversations,
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * Starts the parts the agent loop runs on, the way the daemon wires them but without HTTP:
 * a real nats-server, the tools served by one worker, the registry, the policy store on a
 * temp file, the audit log and the conversation store on temp SQLite files, and a gateway
 * over them. Everything is stopped and removed on dispose, even when a step throws.
 * A file whose tests each need fresh state but not a fresh server uses `startBrainStack`.
 */
export async function startBrainParts(o: BrainPartsOptions): Promise<BrainParts> {
  const stack = await startBrainStack(o);
  try {
    const parts = await stack.parts();
    const close = async () => {
      await parts.close();
      await stack.close();
    };
    return { ...parts, close, [Symbol.asyncDispose]: close };
  } catch (err) {
    await stack.close();
    throw err;
  }
}
