import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { HookSource } from '../../src/config/config.js';
import { verdictOf } from '../../src/hooks/decision.js';
import { Hooks, type HooksAnswer } from '../../src/hooks/hooks.js';
import { matches } from '../../src/hooks/match.js';
import { type HookRun, runHookCommand } from '../../src/hooks/run.js';
import { processAlive } from '../../src/session/lease.js';
import { ProjectTrust } from '../../src/trust/projectTrust.js';
import { tempDir } from '../tempDirs.js';

const TOOLS = ['FileRead', 'Edit', 'Write', 'Bash', 'Grep', 'Glob'];
const run = (over: Partial<HookRun>): HookRun => ({ exitCode: 0, stdout: '', stderr: '', timedOut: false, interrupted: false, durationMs: 1, ...over });

describe('hook matchers', () => {
  it("match this program's and Claude Code's tool names, alternatives and regular expressions", () => {
    expect(matches(undefined, 'Bash', TOOLS)).toBe(true);
    expect(matches('*', 'Bash', TOOLS)).toBe(true);
    expect(matches('Read', 'FileRead', TOOLS)).toBe(true);
    expect(matches('Edit|Write', 'Write', TOOLS)).toBe(true);
    expect(matches('Edit|Write', 'Bash', TOOLS)).toBe(false);
    expect(matches('mcp__.*', 'mcp__github__search', TOOLS)).toBe(true);
    expect(matches('Bash', 'FileRead', TOOLS)).toBe(false);
  });
});

describe("a hook's answer", () => {
  it('reads exit 2, JSON decisions, plain context and failures as Claude Code does', () => {
    expect(verdictOf('PreToolUse', run({ exitCode: 2, stderr: 'no rm -rf\n' }), 'h', 1000)).toEqual({ block: 'no rm -rf' });
    expect(
      verdictOf(
        'PreToolUse',
        run({ stdout: JSON.stringify({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'not here' } }) }),
        'h',
        1000,
      ),
    ).toEqual({ block: 'not here' });
    expect(verdictOf('PreToolUse', run({ stdout: JSON.stringify({ hookSpecificOutput: { permissionDecision: 'allow' } }) }), 'h', 1000)).toEqual({
      allow: true,
    });
    expect(verdictOf('Stop', run({ stdout: JSON.stringify({ decision: 'block', reason: 'go on' }) }), 'h', 1000)).toEqual({ block: 'go on' });
    expect(verdictOf('UserPromptSubmit', run({ stdout: 'extra context\n' }), 'h', 1000)).toEqual({ context: 'extra context' });
    expect(verdictOf('PreToolUse', run({ stdout: 'just chatter' }), 'h', 1000)).toEqual({});
    expect(
      verdictOf('SessionStart', run({ stdout: JSON.stringify({ hookSpecificOutput: { additionalContext: 'ctx' }, systemMessage: 'hi' }) }), 'h', 1000),
    ).toEqual({ context: 'ctx', message: 'hi' });
    expect(verdictOf('PostToolUse', run({ exitCode: 1, stderr: 'oops' }), 'h', 1000).failure).toBe('h failed (exit 1): oops');
    expect(verdictOf('PostToolUse', run({ exitCode: undefined, timedOut: true }), 'h', 1500).failure).toBe('h timed out after 1.5 s and was killed');
  });
});

describe('which hooks run', () => {
  const setup = (): { dir: string; trust: ProjectTrust; source: HookSource; reports: string[] } => {
    const dir = tempDir('hooks-unit-');
    const marker = join(dir, 'ran');
    return {
      dir,
      trust: new ProjectTrust(join(dir, 'trust.json')),
      source: { file: join(dir, '.agentrc'), scope: 'project', dir, hooks: { UserPromptSubmit: [{ command: `echo ran >> ${marker}; echo CTX` }] } },
      reports: [],
    };
  };
  const hooksWith = (s: ReturnType<typeof setup>, extra: { trustProject?: boolean; answer?: HooksAnswer }): Hooks =>
    new Hooks({
      sources: [s.source],
      sessionId: 's_1',
      cwd: s.dir,
      // a home of its own: nothing of the machine's home reaches the hooks
      env: { PATH: process.env['PATH'] ?? '', HOME: s.dir },
      toolNames: TOOLS,
      trust: s.trust,
      trustProject: extra.trustProject ?? false,
      ...(extra.answer !== undefined ? { askApproval: async () => extra.answer! } : {}),
      report: (_l, t) => s.reports.push(t),
    });

  it("runs a project's hooks once approved, and asks again when they change", async () => {
    const s = setup();
    expect((await hooksWith(s, { answer: 'no' }).run('UserPromptSubmit', '', { prompt: 'x' })).ran).toBe(false);
    expect((await hooksWith(s, {}).run('UserPromptSubmit', '', { prompt: 'x' })).ran).toBe(false);
    expect(s.reports.at(-1)).toContain('--hooks-trust');
    // this session only: they run, and nothing is remembered (issue 30: the dialog offers it)
    const reported = s.reports.length;
    expect((await hooksWith(s, { answer: 'session' }).run('UserPromptSubmit', '', { prompt: 'x' })).context).toEqual(['CTX']);
    // issue 49: running them for this session said "do not run in this session" while they ran
    expect(s.reports.slice(reported)).toEqual([]);
    expect((await hooksWith(s, {}).run('UserPromptSubmit', '', { prompt: 'x' })).ran).toBe(false);
    expect((await hooksWith(s, { answer: 'remember' }).run('UserPromptSubmit', '', { prompt: 'x' })).context).toEqual(['CTX']);
    // approved: no question any more
    expect((await hooksWith(s, {}).run('UserPromptSubmit', '', { prompt: 'x' })).context).toEqual(['CTX']);
    // changed: not approved any more
    s.source.hooks.UserPromptSubmit![0]!.command += ' ';
    expect((await hooksWith(s, {}).run('UserPromptSubmit', '', { prompt: 'x' })).ran).toBe(false);
    expect(s.reports.at(-1)).toContain('changed since you approved them');
    expect((await hooksWith(s, { trustProject: true }).run('UserPromptSubmit', '', { prompt: 'x' })).ran).toBe(true);
  });

  it('reports a hook that cannot run and goes on', async () => {
    const s = setup();
    writeFileSync(join(s.dir, 'x'), '');
    s.source = { ...s.source, scope: 'user', hooks: { PostToolUse: [{ command: 'exit 3' }] } };
    const o = await hooksWith(s, {}).run('PostToolUse', 'Bash', {});
    expect(o).toMatchObject({ ran: true, context: [] });
    expect(o.block).toBeUndefined();
    expect(s.reports).toEqual([expect.stringMatching(/^PostToolUse hook `exit 3` failed \(exit 3\)/)]);
  });
});
describe("a hook's shell", () => {
  it("does not read the person's ~/.bashrc, though its stdin (the event's JSON) is a socket, which bash takes for a remote login", async () => {
    const home = tempDir('hook-home-');
    const marker = join(home, 'bashrc-ran');
    writeFileSync(join(home, '.bashrc'), `echo sourced >> ${marker}\n`);
    const run = await runHookCommand('cat', '{"hook_event_name":"Stop"}', {
      cwd: home,
      env: { PATH: process.env['PATH'] ?? '', HOME: home },
      timeoutMs: 10_000,
    });
    expect(run).toMatchObject({ exitCode: 0, stdout: '{"hook_event_name":"Stop"}' });
    expect(existsSync(marker)).toBe(false);
  });

  // mutation: the hook spawned without its own process group (detached: false) leaves the
  // grandchild running: the group kill finds no group
  it('an interrupted hook is killed with its whole process group, a grandchild included', async () => {
    const dir = tempDir('hook-group-');
    const pidFile = join(dir, 'pid');
    const abort = new AbortController();
    const running = runHookCommand(`sleep 30 & echo $! > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile}; wait`, '{}', {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '' },
      timeoutMs: 60_000,
      signal: abort.signal,
      killGraceMs: 100,
    });
    await vi.waitFor(() => expect(existsSync(pidFile)).toBe(true), { timeout: 10_000 });
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    expect(processAlive(grandchild)).toBe(true);
    abort.abort();
    try {
      const run = await running;
      expect(run).toMatchObject({ interrupted: true, timedOut: false, exitCode: undefined });
      await vi.waitFor(() => expect(processAlive(grandchild)).toBe(false), { timeout: 3_000 });
    } finally {
      if (processAlive(grandchild)) process.kill(grandchild, 'SIGKILL');
    }
  });
});
// Mutation: hooks.ts's report of "do not run in this session" back in the plain else branch (for 'session' too) fails
// "runs a project's hooks once approved" (a report after the 'session' answer).
