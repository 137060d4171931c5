// Fresh modules: the sandbox library is one per process (its proxy asks the callback it was
// started with), so this file starts its own, as a run does (bootstrap's startSandbox), with a
// person who answers its network questions.
import { execFileSync, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { inWorld, processWorld } from '../../src/runtime/world.js';
import type { SandboxRuntime } from '../../src/sandbox/runtime.js';
import { startSandbox } from '../../src/sandbox/start.js';
import { createBashTool } from '../../src/tools/bash.js';
import { defaultShell } from '../../src/tools/shell.js';
import type { AnyTool } from '../../src/tools/types.js';
import { tempDir } from '../tempDirs.js';
import { call, ctx } from '../tools/helpers.js';

const project = tempDir('sandbox-net-project-');
const before = process.cwd();
const asked: string[] = [];
const server = createServer((_q, r) => r.end('served'));
let sandbox: SandboxRuntime;
let bash: AnyTool;

beforeAll(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  process.chdir(project);
  execFileSync('git', ['init', '-q'], { cwd: project });
  const home = tempDir('sandbox-net-home-');
  writeFileSync(join(home, '.agentrc'), JSON.stringify({ sandbox: { enabled: true } }));
  const env = { ...process.env, HOME: home };
  const config = loadConfig({ cwd: project, home, env, flags: {} });
  // the person allows what they are asked about, except a host named "denied"
  const started = await inWorld({ ...processWorld(), env, cwd: project, slots: new Map<symbol, unknown>() }, () =>
    startSandbox(config, join(home, 'trust.json'), async (req) => {
      const host = (req.input as { host: string }).host;
      asked.push(host);
      if (host.startsWith('broken')) throw new Error('the prompt went away');
      return host.startsWith('denied') ? { kind: 'deny' } : { kind: 'allow_once' };
    }),
  );
  if (started?.status.state !== 'on') throw new Error(`the sandbox did not start here: ${JSON.stringify(started?.status)} (install bubblewrap and socat)`);
  sandbox = started;
  bash = createBashTool({ timeoutMs: 20_000, maxTimeoutMs: 60_000, maxOutputChars: 30_000, sandbox }) as AnyTool;
}, 60_000);
afterAll(async () => {
  await sandbox?.close();
  server.close();
  process.chdir(before);
});

describe('a sandbox whose person answers its network questions (real bubblewrap and socat)', () => {
  it('a domain allowed once is allowed for the rest of the session, not asked again', async () => {
    const port = (server.address() as AddressInfo).port;
    // through the sandbox's proxy (curl would go around it for localhost), to a name the library
    // matches against the session's list only through this runtime's own memory: "localhost." is
    // dialled as "localhost" but listed as the person allowed it
    const fetch = `curl -s --noproxy '' -x "$HTTP_PROXY" http://localhost.:${port}/`;
    const first = await call(bash, { command: fetch }, ctx(project));
    expect(first).toMatchObject({ content: 'served', isError: false });
    expect(asked).toEqual(['localhost.']);
    const again = await call(bash, { command: fetch }, ctx(project));
    expect(again).toMatchObject({ content: 'served', isError: false });
    expect(asked).toEqual(['localhost.']);
  });

  it('a domain the person refuses is refused, and the model is told (the violation filed under the prepared wrap the command used)', async () => {
    await call(bash, { command: 'true' }, ctx(project));
    await sandbox.prepared();
    const port = (server.address() as AddressInfo).port;
    const r = await call(bash, { command: `curl -s --noproxy '' -x "$HTTP_PROXY" http://denied.localhost:${port}/` }, ctx(project));
    expect(asked).toEqual(['localhost.', 'denied.localhost']);
    expect(r.content).not.toContain('served');
    expect(r.content).toContain(`network denied: denied.localhost:${port}`);
    // a question that fails is a refusal
    const broken = await call(bash, { command: `curl -s --noproxy '' -x "$HTTP_PROXY" http://broken.localhost:${port}/` }, ctx(project));
    expect(asked).toEqual(['localhost.', 'denied.localhost', 'broken.localhost']);
    expect(broken.content).not.toContain('served');
    expect(broken.content).toContain(`network denied: broken.localhost:${port}`);
  });

  it("closed, its session's bridges and the library's proxies are gone when close returns (the program exits next)", async () => {
    const w = await sandbox.wrap('true', defaultShell(), { cwd: project, readOnly: false, id: 'probe' });
    sandbox.denials('probe', '', { readOnly: false });
    const socket = /--bind (\S+\.sock) /.exec(w.argv.join(' '))?.[1];
    expect(socket).toBeDefined();
    const bridges = (): number | null => spawnSync('pgrep', ['-f', `UNIX-CONNECT:${socket}`]).status;
    expect(bridges()).toBe(0);
    expect(existsSync(socket!)).toBe(true);
    await sandbox.close();
    expect(bridges()).toBe(1);
    // and the library's proxies are stopped: their socket is gone
    expect(existsSync(socket!)).toBe(false);
    // closed, it wraps nothing, not even the wrap it had prepared when the last command ended (mutation: close keeping it)
    await expect(sandbox.wrap('true', defaultShell(), { cwd: project, readOnly: false, id: 'after' })).rejects.toThrow('the sandbox is not running');
    // and reads nothing back: an error line is the command's own (mutation: close keeping the library)
    expect(sandbox.denials('after', "touch: cannot touch '/etc/x': Read-only file system", { readOnly: false })).toEqual([]);
    expect(sandbox.sessionBridges).toBe(false);
  });
});
