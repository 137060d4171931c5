import { describe, expect, it } from 'vitest';
import { processAlive as alive } from '../../src/session/lease.js';
import { startSilentServer, type SilentServer } from '../fake-server/silent.js';
import { runAgent, stopLeftoverAgents, useFakeServer, workspace } from './harness.js';
import { runAgent as runInProcess } from './inprocess.js';

// A test that fails or times out while its agent waits must not leave that agent running: it would
// take the replies queued for the next test on the same fake server. The e2e setup file
// (testSetup.ts) stops them after each test.

const server = useFakeServer();

/** Starts an agent that waits on a provider that never answers, until it is killed. */
async function waitingAgent(): Promise<{ silent: SilentServer; pid: number; run: ReturnType<typeof runAgent> }> {
  const silent = await startSilentServer();
  let pid = 0;
  const run = runAgent(['-p', 'hello'], {
    ws: workspace(),
    server,
    env: { ANTHROPIC_BASE_URL: silent.url },
    timeoutMs: 120_000,
    onSpawn: (c) => (pid = c.pid ?? 0),
  });
  return { silent, pid, run };
}

describe('agents a test leaves running', () => {
  it('stopLeftoverAgents kills them, waits until they are gone, and says how many there were', async () => {
    const { silent, pid, run } = await waitingAgent();
    try {
      expect(alive(pid)).toBe(true);
      // mutation: runAgent not recording its child counts 0 here
      expect(await stopLeftoverAgents()).toBe(1);
      expect(alive(pid)).toBe(false);
      expect((await run).signal).toBe('SIGKILL');
      // mutation: a child not forgotten when it closes is counted again
      expect(await stopLeftoverAgents()).toBe(0);
    } finally {
      await silent.close();
    }
  });

  let leftPid = 0;
  let leftSilent: SilentServer | undefined;
  it('(a test that ends while its agent still waits)', async () => {
    const { silent, pid } = await waitingAgent();
    leftPid = pid;
    leftSilent = silent;
    expect(alive(pid)).toBe(true);
  });

  it('the setup file stopped the agent the test before left running', async () => {
    try {
      // mutation: testSetup.ts without stopLeftoverAgents in its afterEach leaves it alive here
      expect(leftPid).toBeGreaterThan(0);
      expect(alive(leftPid)).toBe(false);
    } finally {
      await leftSilent?.close();
    }
  });
});

describe('in-process runs a test leaves running', () => {
  it('stopLeftoverAgents ends them with SIGTERM in their own world, waits for them, and says how many there were', async () => {
    const silent = await startSilentServer();
    try {
      const run = runInProcess(['-p', 'hello'], { ws: workspace(), server, env: { ANTHROPIC_BASE_URL: silent.url }, timeoutMs: 120_000 });
      // (it may still be starting: it gets the signal once it listens for it, harness.ts stopWhenListening)
      // mutation: runAgent (inprocess.ts) not recording its run counts 0 here
      expect(await stopLeftoverAgents()).toBe(1);
      // 128 + SIGTERM, as the process would report it (processes/signals.ts)
      expect((await run).code).toBe(143);
      // mutation: a run not forgotten when it ends is counted again
      expect(await stopLeftoverAgents()).toBe(0);
    } finally {
      await silent.close();
    }
  });
});
