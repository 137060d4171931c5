// Fresh modules: the sandbox library is one per process and judges the project by the working
// directory, so this file runs isolated, in a temporary project it changes into.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Boundaries } from '../../src/sandbox/settings.js';
import { loadConfig } from '../../src/config/config.js';
import { inWorld, processWorld } from '../../src/runtime/world.js';
import { SessionBridges } from '../../src/sandbox/bridges.js';
import { SandboxRuntime } from '../../src/sandbox/runtime.js';
import { startSandbox } from '../../src/sandbox/start.js';
import { createBashTool } from '../../src/tools/bash.js';
import { defaultShell } from '../../src/tools/shell.js';
import type { AnyTool } from '../../src/tools/types.js';
import { tempDir } from '../tempDirs.js';
import { call, ctx, perSession, sessionCtx } from '../tools/helpers.js';
import { keepingShells, sandboxOn as settings, startedSandbox } from './started.js';

// The runtime with the real bubblewrap and socat (CI installs them: .ci/run). Where they are
// missing this file fails: the sandbox is a boundary, and a boundary nobody tested is none.

const home = tempDir('sandbox-home-');
const project = tempDir('sandbox-project-');
const outside = tempDir('sandbox-outside-');
let where: Boundaries;
const before = process.cwd();
let sandbox: SandboxRuntime;
let bash: AnyTool;
let signalListeners: number[] = [];
const listening = (): number[] => [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];

beforeAll(async () => {
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(home, '.ssh', 'id_test'), 'PRIVATE-KEY');
  signalListeners = listening();
  ({ sandbox, where } = await startedSandbox(project, home, { excludedCommands: ['echo-outside'] }));
  bash = perSession((lent) => createBashTool({ timeoutMs: 20_000, maxTimeoutMs: 60_000, maxOutputChars: 30_000, sandbox }, lent));
}, 60_000);
afterAll(async () => {
  await sandbox?.close();
  process.chdir(before);
});

describe('the sandbox runtime (real bubblewrap and socat)', () => {
  it('writes in the project; refuses outside it, in .git/hooks, in .agentrc; hides ~/.ssh; and tells the model what it denied', async () => {
    const ok = await call(bash, { command: 'echo hi > in.txt && cat in.txt' }, ctx(project));
    expect(ok).toMatchObject({ content: 'hi', isError: false });
    const out = await call(bash, { command: `echo x > ${join(outside, 'x.txt')}` }, ctx(project));
    expect(out.isError).toBe(true);
    expect(out.content).toContain(`write denied: ${join(outside, 'x.txt')}`);
    expect(existsSync(join(outside, 'x.txt'))).toBe(false);
    for (const path of ['.git/hooks/post-checkout', '.agentrc']) {
      const r = await call(bash, { command: `echo x > ${path}` }, ctx(project));
      expect(r.isError, path).toBe(true);
      expect(r.content).toContain(`write denied: ${path}`);
      expect(existsSync(join(project, path))).toBe(false);
    }
    const secret = await call(bash, { command: `cat ${join(home, '.ssh', 'id_test')}` }, ctx(project));
    expect(secret.content).not.toContain('PRIVATE-KEY');
  });

  it('read-only (plan mode): nothing is writable, not even the project', async () => {
    writeFileSync(join(project, 'keep.txt'), 'keep');
    const r = await call(bash, { command: 'rm keep.txt; touch made.txt' }, ctx(project), { sandbox: 'readOnly' });
    expect(r.isError).toBe(true);
    expect(r.content).toContain('plan mode runs commands in a read-only sandbox');
    expect(readFileSync(join(project, 'keep.txt'), 'utf8')).toBe('keep');
    expect(existsSync(join(project, 'made.txt'))).toBe(false);
  });

  it("the next command's wrap is made when one ends and used by it, the command hidden from its environment", async () => {
    await call(bash, { command: 'true' }, ctx(project));
    await sandbox.prepared();
    const r = await call(bash, { command: 'echo "[$AGENT_SANDBOX_COMMAND]" && echo second > second.txt' }, ctx(project));
    expect(r).toMatchObject({ content: '[]', isError: false });
    expect(readFileSync(join(project, 'second.txt'), 'utf8')).toBe('second\n');
    // prepared() returns once the next command's wrap is made, not while the library still makes it
    const { SandboxManager } = await import('@anthropic-ai/sandbox-runtime');
    const made = vi.spyOn(SandboxManager, 'wrapWithSandboxArgv');
    try {
      await call(bash, { command: 'true' }, ctx(project));
      expect(made.mock.calls.length).toBeGreaterThan(0);
      await sandbox.prepared();
      // mutation: prepared() not awaiting the wrap in flight leaves the last one incomplete
      expect(made.mock.settledResults.map((r) => r.type)).toEqual(made.mock.calls.map(() => 'fulfilled'));
    } finally {
      made.mockRestore();
    }
    // it was the prepared one: the next command after a wait finds its wrap made
    await sandbox.prepared();
    const w = await sandbox.wrap('true', defaultShell(), { cwd: project, readOnly: false, id: 'probe' });
    // only what the sandbox adds: here (Linux) its proxies' variables are in the command line, so the command alone
    // (the program's own environment is the command's to give, with the keys it hides hidden)
    expect(w.env).toEqual({ AGENT_SANDBOX_COMMAND: 'true' });
    sandbox.denials('probe', '', { readOnly: false });
  });

  it('a prepared wrap is not used once a name changed where the library looked: a repository cloned in between has its .git/config denied', async () => {
    await call(bash, { command: 'true' }, ctx(project));
    await sandbox.prepared();
    // between two commands (the person, outside the sandbox): a nested repository, whose config runs code (core.fsmonitor)
    execFileSync('git', ['init', '-q', 'nested'], { cwd: project });
    const config = readFileSync(join(project, 'nested/.git/config'), 'utf8');
    const r = await call(bash, { command: 'echo "[core]fsmonitor = touch pwned" >> nested/.git/config' }, ctx(project));
    expect(r.isError).toBe(true);
    expect(r.content).toContain('write denied: nested/.git/config');
    expect(readFileSync(join(project, 'nested/.git/config'), 'utf8')).toBe(config);
  });

  it('every wrap the library makes is released once (its mount points are cleaned only when none is left): a wrap the bridges cannot join, two commands ending together, a prepared wrap unfit for its command', async () => {
    await call(bash, { command: 'true' }, ctx(project));
    await sandbox.prepared();
    const { SandboxManager } = await import('@anthropic-ai/sandbox-runtime');
    const made = vi.spyOn(SandboxManager, 'wrapWithSandboxArgv');
    const released = vi.spyOn(SandboxManager, 'cleanupAfterCommand');
    // not the shape bridges.ts joins (another library version): the library's own bridges, waited for
    const unjoinable = vi.spyOn(SessionBridges.prototype, 'join').mockReturnValueOnce(undefined);
    try {
      // the first takes the prepared wrap; the second is wrapped as it comes, twice (the unjoinable one let go)
      const [a, b] = await Promise.all(['a', 'b'].map((id) => sandbox.wrap('true', defaultShell(), { cwd: project, readOnly: false, id: `together-${id}` })));
      expect(a!.argv[0]).toBe('nsenter');
      expect(b!.argv[0]).not.toBe('nsenter');
      expect(b!.argv.join(' ')).toContain('0A*:0C38');
      sandbox.denials('together-a', '', { readOnly: false });
      sandbox.denials('together-b', '', { readOnly: false });
      await sandbox.prepared();
      // one wrap prepared for the next command (none while one waits), as one was before
      expect(made.mock.calls.length).toBe(3);
      expect(released.mock.calls.length).toBe(made.mock.calls.length);
      // a prepared wrap that does not fit the command (writable, for a read-only one) is let go
      await sandbox.wrap('true', defaultShell(), { cwd: project, readOnly: true, id: 'read-only' });
      sandbox.denials('read-only', '', { readOnly: true });
      await sandbox.prepared();
      expect(made.mock.calls.length).toBe(5);
      expect(released.mock.calls.length).toBe(made.mock.calls.length);
    } finally {
      made.mockRestore();
      released.mockRestore();
      unjoinable.mockRestore();
    }
  });

  it("a command starts once the proxy's bridges listen (a connection at once is refused by the proxy, by name, not by a closed port)", async () => {
    // the shell's own reading of the sandbox's /proc/net, first thing: nothing started after the command began
    const listening =
      'l=0; for f in /proc/net/tcp /proc/net/tcp6; do while read -r _ a _ s _; do case "$s$a" in 0A*:0C38|0A*:0438) l=$((l+1));; esac; done < $f; done; echo "listening: $l"';
    for (let i = 0; i < 3; i++) expect((await call(bash, { command: listening }, ctx(project))).content).toBe('listening: 2');
  });

  it("the bridges are the session's, started once, and a command whose holder was killed runs with its own bridges", async () => {
    expect(sandbox.sessionBridges).toBe(true);
    const w = await sandbox.wrap('true', defaultShell(), { cwd: project, readOnly: false, id: 'joined' });
    sandbox.denials('joined', '', { readOnly: false });
    expect(w.argv[0]).toBe('nsenter');
    const pid = Number(/--net=\/proc\/(\d+)\/ns\/net/.exec(w.argv.join(' '))?.[1]);
    // a server in one command is reachable from the next: they share the session's loopback
    const { shells, job: adopted } = keepingShells();
    await call(
      bash,
      { command: `node -e "require('http').createServer((q,r)=>r.end('shared')).listen(8767)"`, run_in_background: true },
      sessionCtx(project, { background: shells }),
    );
    const reached = await call(bash, { command: 'for i in $(seq 50); do curl -s http://127.0.0.1:8767/ && break; sleep 0.2; done' }, ctx(project));
    expect(reached.content).toBe('shared');
    process.kill(-(adopted()?.pid ?? 0), 'SIGKILL');
    await adopted()?.ended;
    await sandbox.prepared();
    process.kill(pid, 'SIGKILL');
    for (let i = 0; sandbox.sessionBridges; i++) {
      if (i > 200) throw new Error('the killed holder was never noticed');
      await new Promise((r) => setTimeout(r, 10));
    }
    // the wrap prepared while the holder lived is stale: this one starts its own bridges, and waits for them
    const listening =
      'l=0; for f in /proc/net/tcp /proc/net/tcp6; do while read -r _ a _ s _; do case "$s$a" in 0A*:0C38|0A*:0438) l=$((l+1));; esac; done < $f; done; echo "listening: $l" > own.txt';
    const r = await call(bash, { command: listening }, ctx(project));
    expect(r.isError, r.content).toBe(false);
    expect(readFileSync(join(project, 'own.txt'), 'utf8')).toBe('listening: 2\n');
    // and the killed holder's bridges ended with it
    const socket = /--bind (\S+\.sock) /.exec(w.argv.join(' '))?.[1];
    expect(socket).toBeDefined();
    expect(spawnSync('pgrep', ['-f', `UNIX-CONNECT:${socket}`]).status).toBe(1);
  }, 40_000);

  it('outside it only when the gate let it out (an approved escape) or the command is excluded', async () => {
    const target = join(outside, 'escaped.txt');
    const asked = await call(bash, { command: `touch ${target}`, dangerouslyDisableSandbox: true }, ctx(project));
    // the tool alone never leaves the sandbox: the gate's 'outside' is the person's approval
    expect(asked.isError).toBe(true);
    expect(existsSync(target)).toBe(false);
    const approved = await call(bash, { command: `touch ${target}`, dangerouslyDisableSandbox: true }, ctx(project), { sandbox: 'outside' });
    expect(approved.isError, approved.content).toBe(false);
    expect(existsSync(target)).toBe(true);
    expect(sandbox.plan('echo-outside now', false)).toEqual({ kind: 'outside', reason: 'excluded' });
    expect(sandbox.plan('ls && echo-outside now', false)).toEqual({ kind: 'inside', autoAllow: true });
    // leaving is the gate's to approve, and only while the settings let commands leave
    expect(sandbox.escapable).toBe(true);
    expect(sandbox.plan('ls', true)).toEqual({ kind: 'outside', reason: 'escape' });
    sandbox.settings.allowUnsandboxedCommands = false;
    try {
      expect(sandbox.escapable).toBe(false);
      expect(sandbox.plan('ls', true)).toEqual({
        kind: 'outside',
        reason: 'escape',
        refused: 'sandbox.allowUnsandboxedCommands is false: commands cannot leave the sandbox',
      });
    } finally {
      sandbox.settings.allowUnsandboxedCommands = true;
    }
  });

  it('a server started in the background keeps serving while other commands come and go', async () => {
    const { shells, job: adopted } = keepingShells();
    // the server and its client share the sandbox's network namespace: its loopback is its own
    const script = `node -e "require('http').createServer((q,r)=>r.end('up')).listen(8765)" & for i in $(seq 60); do curl -s http://127.0.0.1:8765/ >> served.log; echo >> served.log; sleep 0.2; done`;
    const started = await call(bash, { command: script, run_in_background: true }, sessionCtx(project, { background: shells }));
    expect(started.content).toContain('Started in the background');
    for (let i = 0; i < 3; i++) await call(bash, { command: 'true' }, ctx(project));
    const served = (): number => (existsSync(join(project, 'served.log')) ? readFileSync(join(project, 'served.log'), 'utf8').split('up').length - 1 : 0);
    const first = served();
    await call(bash, { command: 'sleep 1' }, ctx(project));
    expect(served()).toBeGreaterThan(first);
    const job = adopted();
    process.kill(-(job?.pid ?? 0), 'SIGKILL');
    await job?.ended;
  }, 40_000);
});

describe('signals and a stopped library', () => {
  it("leaves SIGINT and SIGTERM to the program: the library's handlers (which stop its proxies) are removed", () => {
    expect(listening()).toEqual(signalListeners);
  });

  it('a library stopped under it (its reset) still holds the boundary: nothing is written outside', async () => {
    const { SandboxManager } = await import('@anthropic-ai/sandbox-runtime');
    await SandboxManager.reset();
    const r = await call(bash, { command: `touch ${join(outside, 'after-reset.txt')}` }, ctx(project));
    expect(r.isError).toBe(true);
    expect(existsSync(join(outside, 'after-reset.txt'))).toBe(false);
  });
});

/** Puts a `name` running the shell lines `body` first on PATH (a broken or refusing program); returns what puts PATH back. */
function fakeOnPath(name: string, body: string): () => void {
  const bin = tempDir(`fake-${name}-`);
  writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
  chmodSync(join(bin, name), 0o755);
  const path = process.env['PATH'];
  process.env['PATH'] = `${bin}:${path}`;
  return () => {
    process.env['PATH'] = path;
  };
}

describe('a sandbox that cannot start', () => {
  it('says why (a broken bubblewrap on PATH), and plans every command as unavailable', async () => {
    const restorePath = fakeOnPath('bwrap', 'echo "bwrap: No permissions to create new namespace" >&2\nexit 1');
    // the library is one per process: stop the working one first
    await sandbox.close();
    try {
      const broken = new SandboxRuntime(settings({ failIfUnavailable: true }), where);
      const s = await broken.start();
      expect(s.state).toBe('unavailable');
      expect(s.state === 'unavailable' && s.why).toContain('No permissions to create new namespace');
      expect(broken.plan('ls', false)).toEqual({ kind: 'unavailable', refuse: true, why: s.state === 'unavailable' ? s.why : 'none' });
      const tool = createBashTool({ timeoutMs: 20_000, maxTimeoutMs: 60_000, maxOutputChars: 30_000, sandbox: broken }) as AnyTool;
      const r = await call(tool, { command: 'touch ran.txt' }, ctx(project));
      expect(r.isError).toBe(true);
      expect(r.content).toContain('sandbox.failIfUnavailable refuses every command');
      expect(existsSync(join(project, 'ran.txt'))).toBe(false);
      // started for a run (bootstrap's startSandbox): why it cannot start is among the run's warnings, said at start
      const runHome = tempDir('sandbox-run-home-');
      writeFileSync(join(runHome, '.agentrc'), JSON.stringify({ sandbox: { enabled: true } }));
      const env = { ...process.env, HOME: runHome };
      const config = loadConfig({ cwd: project, home: runHome, env, flags: {} });
      const started = await inWorld({ ...processWorld(), env, cwd: project, slots: new Map<symbol, unknown>() }, () =>
        startSandbox(config, join(runHome, 'trust.json'), undefined),
      );
      expect(started?.plan('ls', false)).toMatchObject({ kind: 'unavailable', refuse: false });
      // mutation: `await sandbox.start()` dropped: nothing said, the run goes on as if sandboxed
      expect(config.warnings.join('\n')).toContain('No permissions to create new namespace');
      await started?.close();
      // not enabled: none started
      const off = loadConfig({ cwd: project, home: tempDir('sandbox-off-home-'), env: {}, flags: {} });
      expect(await startSandbox(off, join(runHome, 'trust.json'), undefined)).toBeUndefined();
    } finally {
      restorePath();
    }
  }, 60_000);

  it('says what the test command printed on stdout, and why it could not run at all (a project that is gone)', async () => {
    // the working sandbox was stopped by the test before (the library is one per process)
    const restorePath = fakeOnPath('bwrap', 'echo "bwrap: loopback: Failed RTM_NEWADDR"\nexit 3');
    try {
      // mutation: the probe's stdout not read loses what bubblewrap said there
      expect(await new SandboxRuntime(settings(), where).start()).toMatchObject({
        state: 'unavailable',
        why: 'a test command failed inside it (exit code 3: bwrap: loopback: Failed RTM_NEWADDR); bubblewrap or socat is broken',
      });
      // and the library it had started is stopped again, its proxies' socket gone (mutation: its reset dropped)
      const { SandboxManager } = await import('@anthropic-ai/sandbox-runtime');
      expect(SandboxManager.getLinuxHttpSocketPath()).toBeUndefined();
    } finally {
      restorePath();
    }
    // a test command that never started (its folder gone) says why, and blames neither bubblewrap nor socat
    // (mutations: the probe's 'error' not listened to, its 'close' alone then says exit code -2 and nothing of why; `started` ignored)
    expect(await new SandboxRuntime(settings(), { ...where, cwd: join(project, 'gone') }).start()).toMatchObject({
      state: 'unavailable',
      why: `its test command could not start in ${join(project, 'gone')} (spawn /bin/sh ENOENT)`,
    });
    // a step that throws (its temporary folder cannot be made): why, and the library stopped again (mutation: the reset in the catch dropped)
    const file = join(tempDir('sandbox-tmp-file-'), 'a-file');
    writeFileSync(file, '');
    expect(await new SandboxRuntime(settings(), { ...where, tmp: join(file, 'tmp') }).start()).toMatchObject({
      state: 'unavailable',
      why: expect.stringContaining('ENOTDIR'),
    });
    const { SandboxManager } = await import('@anthropic-ai/sandbox-runtime');
    expect(SandboxManager.getLinuxHttpSocketPath()).toBeUndefined();
  });

  it('where the session bridges cannot start (unshare refused), commands bring their own; closed, it wraps nothing, not even the wrap it had prepared', async () => {
    const restorePath = fakeOnPath('unshare', 'echo "unshare: unshare failed: Operation not permitted" >&2\nexit 1');
    const own = new SandboxRuntime(settings(), where);
    try {
      expect((await own.start()).state).toBe('on');
      expect(own.sessionBridges).toBe(false);
      const w = await own.wrap('true', defaultShell(), { cwd: project, readOnly: false, id: 'own' });
      expect(w.argv[0]).not.toBe('nsenter');
      own.denials('own', '', { readOnly: false });
      await own.prepared();
    } finally {
      restorePath();
      await own.close();
    }
    // mutation: close keeping the prepared wrap hands it out after the end (with session bridges their end makes it stale)
    await expect(own.wrap('true', defaultShell(), { cwd: project, readOnly: false, id: 'after' })).rejects.toThrow('the sandbox is not running');
  });

  it('where the session bridges start but no command can join them (nsenter refused), they are stopped and commands bring their own', async () => {
    const restorePath = fakeOnPath('nsenter', 'echo "nsenter: reassociate to namespace failed: Operation not permitted" >&2\nexit 1');
    const unjoined = new SandboxRuntime(settings(), where);
    try {
      expect((await unjoined.start()).state).toBe('on');
      // mutations: the bridges kept after their probe failed, or not stopped
      expect(unjoined.sessionBridges).toBe(false);
      const { SandboxManager } = await import('@anthropic-ai/sandbox-runtime');
      expect(spawnSync('pgrep', ['-f', `UNIX-CONNECT:${SandboxManager.getLinuxHttpSocketPath()}`]).status).toBe(1);
      const w = await unjoined.wrap('true', defaultShell(), { cwd: project, readOnly: false, id: 'unjoined' });
      unjoined.denials('unjoined', '', { readOnly: false });
      expect(w.argv[0]).not.toBe('nsenter');
    } finally {
      restorePath();
      await unjoined.close();
    }
  });

  it('says which dependency is missing (bwrap not on PATH) and what to install on this platform, before starting anything', async () => {
    const bin = tempDir('no-bwrap-');
    // the library looks with `which`: socat there, bubblewrap not
    for (const tool of ['which', 'socat']) symlinkSync(execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(), join(bin, tool));
    const path = process.env['PATH'];
    process.env['PATH'] = bin;
    try {
      const lacking = new SandboxRuntime(settings(), where);
      // mutations: `deps.errors.length > 0` made `> 1` (one missing dependency goes on to the library's refusal); the install hint's `??` made `&&`
      expect(await lacking.start()).toEqual({
        state: 'unavailable',
        why: 'bubblewrap (bwrap) not installed',
        install: 'install bubblewrap and socat (Debian/Ubuntu: apt-get install bubblewrap socat; Fedora: dnf install bubblewrap socat)',
      });
    } finally {
      process.env['PATH'] = path;
    }
  });

  it('is off, and plans nothing, when the settings leave it off', async () => {
    const off = new SandboxRuntime(settings({ enabled: false }), { ...where, cwd: tmpdir() });
    expect(await off.start()).toEqual({ state: 'off' });
    expect(off.plan('ls', false)).toBeUndefined();
    // on in the settings but not started (yet): unavailable, and why
    expect(new SandboxRuntime(settings(), where).plan('ls', false)).toEqual({ kind: 'unavailable', refuse: false, why: 'not started' });
  });
});

// Mutations checked: the signal listeners left in place (the first test of 'signals' fails); wrap without the read-only custom config (the read-only test writes
// made.txt); placement() honouring dangerouslyDisableSandbox without the gate's 'outside' (the
// escape test writes escaped.txt); the start-up probe removed (the broken bwrap starts "on");
// the failIfUnavailable refusal in placement() removed (ran.txt is made, unsandboxed); the
// holder's end not making prepared wraps stale (the command after its kill is joined to a dead
// namespace: nsenter fails); the session's bridges not started (the bridges test's first line);
// the holder's group not killed when it ends (its socat bridges outlive it: pgrep finds them);
// the unjoinable wrap or an unfit prepared one not released, or a second wrap prepared while one
// waits (the release count).
