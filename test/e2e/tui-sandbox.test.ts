import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, workspace, useFakeServer } from './harness.js';
import { hasTmux, Tmux } from './tmux.js';

// The sandbox in the TUI (the real bubblewrap and socat): the footer says it is on, a command runs
// inside without a prompt, a connection to a domain off the allow-list asks the person, an escape
// asks with "outside the sandbox" and runs outside once approved, and /sandbox shows the state.

const server = useFakeServer();
let term: Tmux | undefined;
let local: Server;
let port = 0;
beforeAll(async () => {
  local = createServer((_q, r) => r.end('LOCAL-PAGE'));
  await new Promise<void>((r) => local.listen(0, '127.0.0.1', r));
  port = (local.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => local.close(() => r())));
afterEach(() => {
  term?.kill();
  term = undefined;
});

describe.skipIf(!hasTmux)('the sandbox in the TUI', () => {
  it('runs inside without asking, asks for a new domain and for an escape, and /sandbox shows it', async () => {
    const ws = workspace({ sandbox: { enabled: true } });
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-5'], cwd: ws.dir, env, width: 140, height: 45 });
    await term.waitFor('Ask for a change');
    await term.waitFor('sandboxed');

    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: 'echo hi > inside.txt' } }] }, { text: 'Wrote it inside.' });
    term.type('write inside');
    term.keys('Enter');
    await term.waitFor('Wrote it inside.');
    expect(term.screen()).not.toContain('Bash wants to run');
    expect(existsSync(join(ws.dir, 'inside.txt'))).toBe(true);

    // through the proxy to a host no list names: the person is asked, and the answer lets it through
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: `curl -sS -m 30 --noproxy '' http://localhost:${port}/` } }] }, { text: 'Fetched.' });
    term.type('fetch the page');
    term.keys('Enter');
    await term.waitFor(`a connection to localhost:${port}`);
    term.keys('Enter');
    await term.waitFor('Fetched.');

    const outside = join(ws.root, 'outside.txt');
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: `touch ${outside}`, dangerouslyDisableSandbox: true } }] }, { text: 'Done outside.' });
    term.type('write outside');
    term.keys('Enter');
    await term.waitFor('outside the sandbox: the model asks to run it outside the sandbox');
    expect(existsSync(outside)).toBe(false);
    term.keys('Enter');
    await term.waitFor('Done outside.');
    expect(existsSync(outside)).toBe(true);

    term.type('/sandbox');
    term.keys('Enter');
    await term.waitFor('Sandbox: on (bubblewrap with a filtering proxy)');
    expect(server.requests.some((q) => q.raw?.includes('LOCAL-PAGE'))).toBe(true);
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);
  }, 90_000);
});

// Mutations checked: the approval prompt's "outside the sandbox" line removed (the wait for it
// times out); the gate's escape approval skipped (`outside.txt` exists before the answer).
