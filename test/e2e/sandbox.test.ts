import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { rgPath } from '@vscode/ripgrep';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runAgent, workspace, type Workspace, useFakeServer } from './harness.js';
import { runAgent as runInProcess } from './inprocess.js';

// The OS sandbox end to end in print mode: the built CLI with `sandbox.enabled`, the real
// bubblewrap and socat (CI installs them: .ci/run; a machine without them fails here, loudly),
// the real SDK against the fake server. Default mode with auto-allow: commands run without
// asking, inside the project only; the model is told what the sandbox denied.

const server = useFakeServer();

function lastResult(n: number): { content: string; isError: boolean } {
  const out: Array<{ content: string; isError: boolean }> = [];
  for (const m of server.requests[n - 1]?.view?.messages ?? [])
    for (const b of m.blocks) if (b.type === 'tool_result') out.push({ content: b.content, isError: b.isError });
  const last = out.at(-1);
  if (!last) throw new Error(`request ${n} carries no tool result`);
  return last;
}

const bash = (command: string) => ({ toolCalls: [{ name: 'Bash', input: { command } }] });

/** A loopback HTTP server outside the sandbox, on no allow-list. */
let local: Server;
let port = 0;
beforeAll(async () => {
  local = createServer((_q, r) => r.end('SECRET-PAGE'));
  await new Promise<void>((r) => local.listen(0, '127.0.0.1', r));
  port = (local.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => local.close(() => r())));

describe('Bash in the sandbox (print mode, default mode, auto-allow)', () => {
  let ws: Workspace;
  beforeEach(() => {
    ws = workspace({ sandbox: { enabled: true } });
    execFileSync('git', ['init', '-q'], { cwd: ws.dir });
    execFileSync('git', ['config', 'user.email', 'e2e@example.com'], { cwd: ws.dir });
    execFileSync('git', ['config', 'user.name', 'e2e'], { cwd: ws.dir });
  });
  const run = (args: string[], env: Record<string, string | undefined> = {}) => runAgent(args, { ws, server, timeoutMs: 45_000, env });

  it('runs without asking, writes inside the project, is refused outside it and in .git/hooks (and says so), commits, and cannot reach a local server, directly or through the proxy', async () => {
    const outside = join(ws.root, 'outside.txt');
    server.enqueue(
      bash('echo inside > made.txt && cat made.txt'),
      bash(`echo escaped > ${outside}`),
      bash('echo "#!/bin/sh" > .git/hooks/pre-commit'),
      bash('git add made.txt && git commit -qm "from the sandbox" && git log --oneline'),
      bash(`curl -sS -m 10 http://127.0.0.1:${port}/`),
      bash(`curl -sS -m 10 --noproxy '' http://localhost:${port}/`),
      { text: 'done' },
    );
    const r = await run(['-p', 'try the sandbox']);
    expect(r.code, r.stderr).toBe(0);
    // a command ran without anyone asking, and wrote inside the project
    expect(lastResult(2)).toEqual({ content: 'inside', isError: false });
    expect(readFileSync(join(ws.dir, 'made.txt'), 'utf8')).toBe('inside\n');
    // outside the project: refused, and the model reads which path
    const out = lastResult(3);
    expect(out.isError).toBe(true);
    expect(out.content).toContain('[sandbox] The sandbox denied this command');
    expect(out.content).toContain(`write denied: ${outside}`);
    expect(existsSync(outside)).toBe(false);
    // .git/hooks stays unwritable
    const hook = lastResult(4);
    expect(hook.isError).toBe(true);
    expect(hook.content).toContain('write denied: .git/hooks/pre-commit');
    expect(existsSync(join(ws.dir, '.git/hooks/pre-commit'))).toBe(false);
    // git add and commit work
    const commit = lastResult(5);
    expect(commit.isError, commit.content).toBe(false);
    expect(execFileSync('git', ['log', '--format=%s'], { cwd: ws.dir, encoding: 'utf8' })).toBe('from the sandbox\n');
    // the local server is out of reach, and the model is told why
    const net = lastResult(6);
    expect(net.isError).toBe(true);
    expect(net.content).not.toContain('SECRET-PAGE');
    expect(net.content).toContain(`network denied: 127.0.0.1:${port}`);
    // through the proxy: a host on no allow-list is refused in print mode (nobody to ask), by name
    const proxied = lastResult(7);
    expect(proxied.content).not.toContain('SECRET-PAGE');
    expect(proxied.content).toContain(`network denied: localhost:${port} (host is not on the allow list)`);
  });

  it('an escape (dangerouslyDisableSandbox) is refused in print mode, where nobody can approve it; the denial is in `sessions show`', async () => {
    const outside = join(ws.root, 'escaped.txt');
    server.enqueue(
      bash(`touch ${outside}`),
      { toolCalls: [{ name: 'Bash', input: { command: `touch ${outside}`, dangerouslyDisableSandbox: true } }] },
      { text: 'gave up' },
    );
    const r = await run(['-p', 'write outside', '--output-format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(lastResult(2).content).toContain(`write denied: ${outside}`);
    const leave = lastResult(3);
    expect(leave.isError).toBe(true);
    expect(leave.content).toContain('the model asks to run it outside the sandbox');
    expect(leave.content).toContain('nobody can approve in non-interactive mode');
    expect(existsSync(outside)).toBe(false);
    // the model was offered the escape only because the sandbox is on, and told what it means
    expect(server.requests[0]?.raw).toContain('dangerouslyDisableSandbox');
    expect(server.requests[0]?.raw).toContain('Commands run in a sandbox');
    const id = (JSON.parse(r.stdout) as { session_id: string }).session_id;
    // reading the record starts no sandbox: in this process
    const show = await runInProcess(['sessions', 'show', id], { ws });
    // a record of its own, under the command it denied (not only the tool result's text)
    expect(show.stdout).toMatch(
      new RegExp(`## Sandbox violations \\(1\\)\\n- [\\d: -]+  write denied: ${outside.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} .*\\(toolu_\\w+: touch `),
    );
  });

  it('plan mode runs a read-only command in a read-only sandbox: `rg --pre rm` deletes nothing, whatever the classifier says', async () => {
    mkdirSync(join(ws.dir, 'victim'));
    writeFileSync(join(ws.dir, 'victim', 'keep.txt'), 'zzz\n');
    server.enqueue(bash('rg --pre rm zzz victim'), { text: 'planned' });
    // rg from the package, first on PATH (the machine may have none)
    const r = await run(['-p', 'plan it', '--permission-mode', 'plan'], { PATH: `${dirname(rgPath)}:${process.env['PATH']}` });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(ws.dir, 'victim', 'keep.txt'), 'utf8')).toBe('zzz\n');
    // whether the classifier let it through (it ran, read-only) or refused it (plan mode's refusal), nothing was deleted
    const res = lastResult(2);
    if (!res.content.includes('Plan mode is on')) expect(res.content).toContain('write denied');
  });

  it('with bubblewrap broken: says so at start, and nothing runs unsandboxed without asking (print mode refuses)', async () => {
    const bin = join(ws.root, 'broken-bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'bwrap'), '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n');
    chmodSync(join(bin, 'bwrap'), 0o755);
    server.enqueue(bash('touch ran-unsandboxed.txt'), { text: 'done' });
    const r = await run(['-p', 'run it'], { PATH: `${bin}:${process.env['PATH']}` });
    expect(r.code, r.stderr).toBe(0);
    // the person is told, with what to install
    expect(r.stderr).toContain('The sandbox is enabled but cannot start');
    expect(r.stderr).toContain('install bubblewrap and socat');
    // the command did not run, and the model reads why
    expect(existsSync(join(ws.dir, 'ran-unsandboxed.txt'))).toBe(false);
    const res = lastResult(2);
    expect(res.isError).toBe(true);
    expect(res.content).toContain('the sandbox cannot start');
    expect(res.content).toContain('nobody can approve in non-interactive mode');
    // /sandbox says what is missing
    const report = await run(['-p', '/sandbox'], { PATH: `${bin}:${process.env['PATH']}` });
    expect(report.stdout).toContain('Sandbox: UNAVAILABLE');
    expect(report.stdout).toContain('Every Bash command asks before it runs unsandboxed.');
  });
});

describe('agent doctor and the sandbox', () => {
  it('reports a broken bubblewrap as a failure with what to install', async () => {
    const ws = workspace({ sandbox: { enabled: true } });
    const bin = join(ws.root, 'broken-bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'bwrap'), '#!/bin/sh\nexit 1\n');
    chmodSync(join(bin, 'bwrap'), 0o755);
    const r = await runAgent(['doctor'], { ws, timeoutMs: 45_000, env: { PATH: `${bin}:${process.env['PATH']}` } });
    expect(r.stdout).toMatch(/FAIL {2}sandbox +enabled but it cannot start/);
    expect(r.stdout).toContain('install bubblewrap and socat');
    const ok = await runAgent(['doctor'], { ws, timeoutMs: 45_000 });
    expect(ok.stdout).toMatch(/ok +sandbox +on: a test command ran inside it/);
  });
});

// Mutations checked (each fails a test above): auto-allow ignored in the gate (decideSandboxed's
// `plan.autoAllow` branch removed: print mode refuses the first command); the read-only custom
// config dropped in runtime.wrap (plan mode's `rg --pre rm` deletes keep.txt); the start-up probe
// removed (the broken bwrap reaches the first command, which fails with "Exit code 1" instead of
// the notice); withDenials not called (no "[sandbox]" note); the session's record of the denial
// not saved (Session.emit's save removed: no "Sandbox violations" in `sessions show`).
