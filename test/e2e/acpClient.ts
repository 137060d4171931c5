import { spawn } from 'node:child_process';
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
import { startAgent } from './inprocess.js';

// A client built on the official ACP SDK driving `agent acp` over its standard input and output
// against the fake provider: what test/e2e/acp*.test.ts share. The agent runs in this process
// (inprocess.ts's startAgent); a test of two processes on one session starts one `spawned`. A
// test adds the client methods it offers (fs/*, terminal/*) through `offer`.

export interface Harness {
  updates: SessionNotification[];
  permissions: RequestPermissionRequest[];
  stderr: () => string;
  stdout: () => string;
}

export interface AgentRun {
  /** Starts `agent acp` in ws (in this process unless `start` says spawned) and runs `op` with a connected SDK client; `answer` picks each permission's option. */
  withAgent<T>(
    ws: Workspace,
    answer: (req: RequestPermissionRequest) => string | 'cancel',
    op: (ctx: ClientContext, h: Harness) => Promise<T>,
    offer?: (app: ClientApp) => ClientApp,
    start?: Start,
  ): Promise<T>;
}

/** How an agent is started: in this process (the default), or as a process of its own (a test of the lease between processes). */
export type Start = 'in-process' | 'spawned';

/** The ACP client of a test file: its agents are ended after each test. */
export function acpClient(server: FakeServer): AgentRun {
  const agents: Array<() => void | Promise<void>> = [];
  afterEach(async () => {
    for (const stop of agents.splice(0)) await stop();
  });
  return {
    async withAgent(ws, answer, op, offer = (app) => app, start = 'in-process') {
      const args = ['acp', '--model', MODEL.anthropic];
      let agent: { stdin: NodeJS.WritableStream; stdout: NodeJS.ReadableStream; stderr: () => string; stop: () => void | Promise<void> };
      if (start === 'spawned') {
        const child = spawn(process.execPath, [AGENT_BIN, ...args], {
          cwd: ws.dir,
          env: agentEnv({ ws, server, provider: 'anthropic' }),
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
        agent = { stdin: child.stdin, stdout: child.stdout, stderr: () => stderr, stop: () => void child.kill('SIGKILL') };
      } else agent = startAgent(args, { ws, server, provider: 'anthropic' });
      agents.push(agent.stop);
      let stdout = '';
      agent.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
      const h: Harness = { updates: [], permissions: [], stderr: agent.stderr, stdout: () => stdout };
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
      const stream = ndJsonStream(
        Writable.toWeb(agent.stdin as Writable) as WritableStream<Uint8Array>,
        Readable.toWeb(agent.stdout as Readable) as ReadableStream<Uint8Array>,
      );
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
        agent.stdin.end();
        // an in-process agent ends when its input does: the next agent of the test starts after it
        if (start === 'in-process') await agent.stop();
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
