import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { type FollowedEvent, followStatus, statusLineFor } from '../../src/statusLine/follow.js';
import { inWorld, processWorld } from '../../src/runtime/world.js';
import { processAlive } from '../../src/session/lease.js';
import { statusInput } from '../../src/statusLine/input.js';
import { StatusCommand } from '../../src/statusLine/statusCommand.js';
import { usage } from '../ui/fakes.js';
import { tempDir } from '../tempDirs.js';

function dirs(): { home: string; cwd: string } {
  const root = tempDir('agent-status-');
  const home = join(root, 'home');
  const cwd = join(root, 'project');
  mkdirSync(home);
  mkdirSync(cwd);
  return { home, cwd };
}
const load = (d: { home: string; cwd: string }) => loadConfig({ cwd: d.cwd, home: d.home, env: { ANTHROPIC_API_KEY: 'x' }, flags: {} });

describe('statusLine in .agentrc', () => {
  it("is read from ~/.agentrc; a project's is ignored with a warning (it would run unapproved)", () => {
    const d = dirs();
    writeFileSync(join(d.home, '.agentrc'), JSON.stringify({ statusLine: { type: 'command', command: 'echo home' } }));
    writeFileSync(join(d.cwd, '.agentrc'), JSON.stringify({ statusLine: { type: 'command', command: 'echo project' } }));
    const c = load(d);
    // mutation: merging the project's entry shows "echo project" here
    expect(c.statusLine).toEqual({ command: 'echo home', timeoutMs: 2_000 });
    expect(c.warnings.join('\n')).toMatch(/statusLine is read from ~\/\.agentrc only/);
  });

  it('names the field of a bad entry', () => {
    const d = dirs();
    writeFileSync(join(d.home, '.agentrc'), JSON.stringify({ statusLine: { type: 'script', command: 'x' } }));
    expect(() => load(d)).toThrow(ConfigError);
    expect(() => load(d)).toThrow(/statusLine\.type/);
  });
});

describe('StatusCommand', () => {
  it('feeds the input on stdin, keeps the first line, and runs the latest queued input once the run ends', async () => {
    const lines: string[] = [];
    const done = new Promise<void>((resolve) => {
      const runner = new StatusCommand({
        command: `"${process.execPath}" -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{console.log('n='+JSON.parse(s).n);console.log('x')})"`,
        cwd: tmpdir(),
        env: process.env,
        timeoutMs: 10_000,
        onLine: (l) => {
          lines.push(l);
          if (l === 'n=3') resolve();
        },
      });
      // 2 is replaced by 3 while 1 runs: never a pile of runs, the latest wins
      runner.update({ n: 1 });
      runner.update({ n: 2 });
      runner.update({ n: 3 });
    });
    await done;
    expect(lines).toEqual(['n=1', 'n=3']);
  });
});

describe('StatusCommand failing', () => {
  /** The one warning of a command that writes `err` on stderr and exits 3. */
  const warningOf = (err: string, code = 3) =>
    new Promise<string>((resolve) => {
      const runner = new StatusCommand({
        command: `"${process.execPath}" -e "process.stderr.write(process.argv[1]);process.exit(${code})" "${err}"`,
        cwd: tmpdir(),
        env: process.env,
        timeoutMs: 10_000,
        onLine: (l) => resolve(`line: ${l}`),
        onError: resolve,
      });
      runner.update({});
    });

  it('says its exit code and the end of its stderr, 300 characters on one line, cut with … only when longer', async () => {
    // mutation: STDERR_SHOWN 300 made 301: one more character shown
    expect(await warningOf(`${'a'.repeat(700)}${'b'.repeat(300)}`)).toBe(`the statusLine command exited with code 3; its stderr said: …${'b'.repeat(300)}`);
    expect(await warningOf('c'.repeat(300))).toBe(`the statusLine command exited with code 3; its stderr said: ${'c'.repeat(300)}`);
    expect(await warningOf('one\n  two')).toBe('the statusLine command exited with code 3; its stderr said: one two');
    expect(await warningOf('', 4)).toBe('the statusLine command exited with code 4 and wrote nothing on stderr');
    // the usual stderr ends with a newline: not shown as a trailing space; only white space is nothing
    expect(await warningOf('fatal: not a git repository\n')).toBe('the statusLine command exited with code 3; its stderr said: fatal: not a git repository');
    expect(await warningOf(' \n ', 5)).toBe('the statusLine command exited with code 5 and wrote nothing on stderr');
  });
});

describe('StatusCommand taking too long', () => {
  // mutation: the command spawned without its own process group (detached: false) leaves it and
  // its grandchild running: the group kill finds no group, and the run never ends
  it('is stopped with its whole process group, a grandchild included, and the warning says so', async () => {
    const dir = tempDir('agent-status-slow-');
    const pidFile = join(dir, 'pid');
    const warnings: string[] = [];
    const runner = new StatusCommand({
      command: `sleep 30 & echo $! > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile}; wait`,
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '' },
      timeoutMs: 1_000,
      onLine: () => {},
      onError: (m) => warnings.push(m),
    });
    runner.update({});
    await vi.waitFor(() => expect(existsSync(pidFile)).toBe(true), { timeout: 10_000 });
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    try {
      await vi.waitFor(() => expect(warnings).toEqual(['the statusLine command took longer than 1000 ms and was stopped']), { timeout: 10_000 });
      await vi.waitFor(() => expect(processAlive(grandchild)).toBe(false), { timeout: 3_000 });
    } finally {
      if (processAlive(grandchild)) process.kill(grandchild, 'SIGKILL');
    }
  });
});

describe("the statusLine command's input", () => {
  const facts = { sessionId: 's', model: 'm', cwd: '/p', projectDir: '/p', version: '1', costUsd: 0, durationMs: 0, apiDurationMs: 0 };
  const input = (context: ReturnType<typeof usage>) =>
    statusInput({ ...facts, inputTokens: 0, outputTokens: 0, context, compactions: 0, permissionMode: 'ask' }) as Record<string, unknown>;

  it('carries a compaction written in the background under agent_compacting, null when none (issue 43)', () => {
    // mutation: statusInput without agent_compacting fails both
    expect(input(usage()).agent_compacting).toBeNull();
    const compacting = { trigger: 'manual' as const, startedAt: 1_000, ready: true };
    expect(input(usage({ compacting })).agent_compacting).toEqual({ trigger: 'manual', ready: true, started_at_ms: 1_000 });
  });
});

describe('the figures the statusLine follows', () => {
  it("counts every input token billed, cached ones included, and each reply's output, as Claude Code's total_input_tokens does", async () => {
    const lines: string[] = [];
    // the command runs at the start and again after the turn: its second line is the one under test
    let second: () => void = () => undefined;
    const twoLines = new Promise<void>((resolve) => {
      second = resolve;
    });
    const follow = followStatus({
      command: `"${process.execPath}" -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const c=JSON.parse(s).context_window;console.log('in='+c.total_input_tokens+' out='+c.total_output_tokens)})"`,
      timeoutMs: 10_000,
      cwd: tmpdir(),
      env: process.env,
      version: '1',
      now: () => ({ sessionId: 's', model: 'claude-sonnet-5-5', permissionMode: 'ask', context: usage() }),
      show: (l) => {
        if (lines.push(l) === 2) second();
      },
      warn: (m) => {
        if (lines.push(`warning: ${m}`) === 2) second();
      },
    });
    try {
      const billed = { inputTokens: 100, outputTokens: 50, cacheReadTokens: 1_000, cacheWriteTokens: 200 };
      follow.onEvent({ type: 'usage', usage: billed, model: 'claude-sonnet-5-5', stopReason: 'end_turn' });
      follow.onEvent({ type: 'usage', usage: { ...billed, cacheWriteTokens: 0 }, model: 'claude-sonnet-5-5', stopReason: 'end_turn' });
      follow.onEvent({ type: 'turn_end', reason: 'end_turn', steps: 2, usage: billed, text: '' });
      await twoLines;
      expect(lines).toEqual(['in=0 out=0', 'in=2400 out=100']);
    } finally {
      follow.close();
    }
  });
});

describe("statusLineFor: the front end's statusLine", () => {
  it("runs ~/.agentrc's command with the session's figures, without the provider's key in its environment, again on the events it follows, and stops following once closed", async () => {
    const d = dirs();
    // prints the session, the mode and the two variables it may or may not see
    const script =
      "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const j=JSON.parse(s);console.log([j.session_id,j.model.id,j.agent_permission_mode,process.env.ANTHROPIC_API_KEY??'no-key',process.env.STATUS_PLAIN??'no-plain'].join(' '))})";
    writeFileSync(join(d.home, '.agentrc'), JSON.stringify({ statusLine: { type: 'command', command: `"${process.execPath}" -e "${script}"` } }));
    const env = { ANTHROPIC_API_KEY: 'sk-ant-secret', STATUS_PLAIN: 'plain', PATH: process.env['PATH'] };
    const config = loadConfig({ cwd: d.cwd, home: d.home, env, flags: {} });
    const listeners = new Set<(e: FollowedEvent) => void>();
    let mode: string | undefined;
    const lines: string[] = [];
    let heard: (line: string) => void = () => undefined;
    const host = {
      session: () => ({ id: 'sess-1', title: null, model: 'claude-sonnet-4-5', provider: 'anthropic', cwd: d.cwd, ...(mode ? { permissionMode: mode } : {}) }),
      contextUsage: () => usage(),
      observe: (l: (e: FollowedEvent) => void) => {
        listeners.add(l);
        return () => listeners.delete(l);
      },
      notify: (_level: 'warning', text: string) => lines.push(`warning: ${text}`),
    };
    const next = () => new Promise<string>((resolve) => (heard = resolve));
    const first = next();
    const status = inWorld({ ...processWorld(), env, cwd: d.cwd, slots: new Map<symbol, unknown>() }, () =>
      statusLineFor(config, host, (l) => {
        lines.push(l);
        heard(l);
      }),
    );
    try {
      // mutation: the secrets filter's negation dropped: the command sees only the key
      expect(await first).toBe('sess-1 claude-sonnet-4-5 ask no-key plain');
      expect(listeners.size).toBe(1);
      mode = 'acceptEdits';
      const second = next();
      for (const l of listeners) l({ type: 'permission_mode', mode: 'acceptEdits' });
      expect(await second).toBe('sess-1 claude-sonnet-4-5 acceptEdits no-key plain');
    } finally {
      status?.close();
    }
    expect(listeners.size).toBe(0);
    expect(lines.filter((l) => l.startsWith('warning'))).toEqual([]);
  });

  it('starts nothing without a statusLine', () => {
    const d = dirs();
    const host = {
      session: () => ({ id: 's', title: null, model: 'm', provider: 'p', cwd: d.cwd }),
      contextUsage: () => usage(),
      observe: () => () => true,
      notify: () => undefined,
    };
    expect(statusLineFor(load(d), host, () => undefined)).toBeUndefined();
  });
});

// Mutation checked: followStatus adding only the uncached input (`input += u.inputTokens`) shows
// in=200 and fails the last test (the fresh sample of 6 Dec, mutant 21).
