import { type ChildProcess, spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import {
  client,
  ndJsonStream,
  type ClientApp,
  type ClientContext,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from '@agentclientprotocol/sdk';
import { afterEach, expect } from 'vitest';
import type { FakeServer } from '../fake-server/server.js';
import { AGENT_BIN, MODEL, agentEnv, type Workspace } from './harness.js';

// A client built on the official ACP SDK driving `agent acp` over stdio against the fake
// provider: what test/e2e/acp*.test.ts share. A test adds the client methods it offers (fs/*,
// terminal/*) through `offer`.

export interface Harness {
  updates: SessionNotification[];
  permissions: RequestPermissionRequest[];
  stderr: () => string;
  stdout: () => string;
}

export interface AgentRun {
  /** Spawns `agent acp` in ws and runs `op` with a connected SDK client; `answer` picks each permission's option. */
  withAgent<T>(
    ws: Workspace,
    answer: (req: RequestPermissionRequest) => string | 'cancel',
    op: (ctx: ClientContext, h: Harness) => Promise<T>,
    offer?: (app: ClientApp) => ClientApp,
  ): Promise<T>;
}

/** The ACP client of a test file: its agents are killed after each test. */
export function acpClient(server: FakeServer): AgentRun {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
  });
  return {
    async withAgent(ws, answer, op, offer = (app) => app) {
      const child = spawn(process.execPath, [AGENT_BIN, 'acp', '--model', MODEL.anthropic], {
        cwd: ws.dir,
        env: agentEnv({ ws, server, provider: 'anthropic' }),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      children.push(child);
      let stderr = '';
      let stdout = '';
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.stdout!.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
      const h: Harness = { updates: [], permissions: [], stderr: () => stderr, stdout: () => stdout };
      const app = offer(
        client({ name: 'test-editor' })
          .onNotification('session/update', ({ params }) => {
            h.updates.push(params);
          })
          .onRequest('session/request_permission', ({ params }): RequestPermissionResponse => {
            h.permissions.push(params);
            const choice = answer(params);
            return { outcome: choice === 'cancel' ? { outcome: 'cancelled' } : { outcome: 'selected', optionId: choice } };
          }),
      );
      const stream = ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>);
      try {
        const out = await app.connectWith(stream, (ctx) => op(ctx, h));
        // stdout carries only the protocol: every line a JSON-RPC message
        const bad = h
          .stdout()
          .split('\n')
          .filter((l) => l.trim() && (JSON.parse(l) as { jsonrpc?: string }).jsonrpc !== '2.0');
        expect(bad).toEqual([]);
        return out;
      } finally {
        child.stdin!.end();
      }
    },
  };
}

/** Waits for `probe` to give a value, failing fast with what was awaited. */
export async function until<T>(what: string, probe: () => T | undefined, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
