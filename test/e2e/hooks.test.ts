import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSummarizer, KEY, runAgent, useFakeServer, workspace, type Workspace } from './inprocess.js';

// Hooks end to end: the built CLI in print mode, real shell scripts as hooks, the fake server
// recording what reached the model.

const server = useFakeServer();

/** Writes an executable script into the project's hooks/ folder and returns the command that runs it. */
function script(ws: Workspace, name: string, body: string): string {
  mkdirSync(join(ws.dir, 'hooks'), { recursive: true });
  const file = join(ws.dir, 'hooks', name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

/** Whether a process runs (a killed one nobody reaped yet is a zombie: not running). */
function running(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

const requestText = (n: number): string => JSON.stringify(server.requests[n - 1]?.view?.messages ?? []);
const read = (ws: Workspace, name: string): string => readFileSync(join(ws.dir, name), 'utf8');

describe('hooks in print mode', () => {
  it('runs every turn event: SessionStart and UserPromptSubmit add context, PreToolUse blocks rm -rf with its reason as the tool result, PostToolUse adds a note, Stop sends the model back once', async () => {
    const ws0 = workspace();
    const hooks = {
      SessionStart: [{ command: script(ws0, 'start.sh', 'cat > start.json; env > env.txt; echo SESSION-START-CONTEXT') }],
      UserPromptSubmit: [{ command: script(ws0, 'prompt.sh', 'cat > prompt.json; echo PROMPT-CONTEXT-42') }],
      PreToolUse: [
        {
          matcher: 'Bash',
          command: script(
            ws0,
            'guard.sh',
            'input=$(cat)\ncase "$input" in *"rm -rf"*) echo "rm -rf is not allowed here: move it to the trash instead" >&2; exit 2;; esac\nexit 0',
          ),
        },
      ],
      PostToolUse: [{ matcher: 'Bash|Write', command: script(ws0, 'post.sh', 'cat > post.json; echo POST-NOTE-7') }],
      Stop: [
        {
          command: script(
            ws0,
            'stop.sh',
            'cat >> stop.json\nif [ ! -f stopped-once ]; then touch stopped-once; echo \'{"decision":"block","reason":"also run the tests"}\'; fi',
          ),
        },
      ],
    };
    writeFileSync(join(ws0.dir, '.agentrc'), JSON.stringify({ retry: { baseDelayMs: 5, maxDelayMs: 50 }, hooks }));
    mkdirSync(join(ws0.dir, 'build'));
    server.enqueue(
      { toolCalls: [{ name: 'Bash', input: { command: 'rm -rf build' } }] },
      { toolCalls: [{ name: 'Bash', input: { command: 'echo hello-from-bash' } }] },
      { text: 'done' },
      { text: 'tests pass' },
    );
    const r = await runAgent(['-p', 'clean up', '--hooks-trust', '--permission-mode', 'allow'], { ws: ws0, server, timeoutMs: 40_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/tests pass$/);
    // SessionStart and UserPromptSubmit: their stdout reached the first request
    expect(requestText(1)).toContain('SESSION-START-CONTEXT');
    expect(requestText(1)).toContain('PROMPT-CONTEXT-42');
    expect(JSON.parse(read(ws0, 'start.json'))).toMatchObject({ hook_event_name: 'SessionStart', source: 'startup', cwd: ws0.dir });
    expect(JSON.parse(read(ws0, 'prompt.json'))).toMatchObject({ hook_event_name: 'UserPromptSubmit', prompt: 'clean up' });
    // PreToolUse: rm -rf blocked, its reason is the tool result the model read, the directory is still there
    expect(requestText(2)).toContain('rm -rf is not allowed here: move it to the trash instead');
    expect(existsSync(join(ws0.dir, 'build'))).toBe(true);
    // PostToolUse: the note follows the output
    expect(requestText(3)).toContain('hello-from-bash');
    expect(requestText(3)).toContain('POST-NOTE-7');
    expect(JSON.parse(read(ws0, 'post.json'))).toMatchObject({ tool_name: 'Bash', tool_input: { command: 'echo hello-from-bash' } });
    // Stop: once it sent the model back with its reason, then let it stop
    expect(requestText(4)).toContain('also run the tests');
    expect(server.requests.length).toBe(4);
    // hooks never see the key
    const env = read(ws0, 'env.txt');
    expect(env).not.toContain('ANTHROPIC_API_KEY');
    expect(env).not.toContain(KEY.anthropic);
  }, 60_000);

  it('a Stop hook that always says go on sends the model back at most 3 times (exit 2, stderr as the reason)', async () => {
    const ws = workspace();
    writeFileSync(
      join(ws.dir, '.agentrc'),
      JSON.stringify({ hooks: { Stop: [{ command: script(ws, 'nag.sh', 'cat >> stops.jsonl; echo >> stops.jsonl; echo "keep going" >&2; exit 2') }] } }),
    );
    server.enqueue({ text: 'one' }, { text: 'two' }, { text: 'three' }, { text: 'four' }, { text: 'five' });
    const r = await runAgent(['-p', 'work', '--hooks-trust'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.length).toBe(4);
    expect(requestText(4)).toContain('keep going');
    const stops = read(ws, 'stops.jsonl')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { stop_hook_active: boolean });
    expect(stops.map((s) => s.stop_hook_active)).toEqual([false, true, true]);
  });

  it('a UserPromptSubmit hook that exits 2 blocks the prompt: nothing is sent, the person reads the reason', async () => {
    const ws = workspace();
    writeFileSync(
      join(ws.dir, '.agentrc'),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ command: script(ws, 'no.sh', 'echo "no deploys on Fridays" >&2; exit 2') }] } }),
    );
    const r = await runAgent(['-p', 'deploy it', '--hooks-trust'], { ws, server });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no deploys on Fridays');
    expect(server.requests.length).toBe(0);
  });

  it('kills a hanging hook and everything it started at its timeout; the turn goes on', async () => {
    const ws = workspace();
    const hang = script(ws, 'hang.sh', 'sleep 300 &\necho $! > child.pid\nwait');
    writeFileSync(join(ws.dir, '.agentrc'), JSON.stringify({ hooks: { UserPromptSubmit: [{ command: hang, timeoutMs: 500 }] } }));
    server.enqueue({ text: 'answered anyway' });
    const r = await runAgent(['-p', 'hello', '--hooks-trust'], { ws, server, timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('answered anyway');
    expect(r.stderr).toMatch(/UserPromptSubmit hook .*timed out after 0\.5 s and was killed/);
    const pid = Number(read(ws, 'child.pid'));
    expect(running(pid)).toBe(false);
  });

  it("does not run an unapproved project's hooks (print mode without --hooks-trust), and runs the home ones", async () => {
    const ws = workspace();
    writeFileSync(join(ws.dir, '.agentrc'), JSON.stringify({ hooks: { UserPromptSubmit: [{ command: `touch ${join(ws.dir, 'project-ran')}` }] } }));
    writeFileSync(join(ws.home, '.agentrc'), JSON.stringify({ hooks: { UserPromptSubmit: [{ command: `touch ${join(ws.dir, 'home-ran')}` }] } }));
    server.enqueue({ text: 'ok' });
    const r = await runAgent(['-p', 'hello'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(ws.dir, 'project-ran'))).toBe(false);
    expect(existsSync(join(ws.dir, 'home-ran'))).toBe(true);
    expect(r.stderr).toContain('--hooks-trust');
  });

  it('PreCompact output and compaction.instructions join /compact focus in the summary request; PostCompact gets the receipt', async () => {
    const ws = workspace();
    const hooks = {
      PreCompact: [{ command: script(ws, 'pre.sh', 'cat > precompact.json; echo PRECOMPACT-KEEP-THE-PORTS') }],
      PostCompact: [{ command: script(ws, 'postc.sh', 'cat > receipt.json') }],
    };
    writeFileSync(join(ws.dir, '.agentrc'), JSON.stringify({ hooks, compaction: { instructions: 'STANDING-KEEP-ERROR-CODES', tailTurns: 1 } }));
    const long = 'This answer goes on at some length about the files and what they contain. '.repeat(60);
    server.enqueue({ text: long }, { text: long });
    expect((await runAgent(['-p', 'first'], { ws, server })).code).toBe(0);
    expect((await runAgent(['-p', 'second', '--continue'], { ws, server })).code).toBe(0);
    server.enqueue({ text: '## Goal\nsummary' });
    const r = await runAgent(['-p', '/compact focus: FOCUS-THE-SCHEMA', '--continue', '--hooks-trust'], { ws, server });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const summary = server.requests.find((q) => q.view && isSummarizer(q.view));
    expect(summary).toBeDefined();
    const sent = JSON.stringify(summary!.view);
    for (const part of ['STANDING-KEEP-ERROR-CODES', 'PRECOMPACT-KEEP-THE-PORTS', 'FOCUS-THE-SCHEMA']) expect(sent).toContain(part);
    expect(JSON.parse(read(ws, 'precompact.json'))).toMatchObject({
      hook_event_name: 'PreCompact',
      trigger: 'manual',
      custom_instructions: 'FOCUS-THE-SCHEMA',
    });
    expect(JSON.parse(read(ws, 'receipt.json'))).toMatchObject({ hook_event_name: 'PostCompact', compaction: { status: 'applied', trigger: 'manual' } });
  }, 60_000);

  // issue 30: hooks in Claude Code's .claude/settings.json were silently ignored. They run as
  // Claude Code runs them (matcher, JSON answers), under the same project approval (-p: only with
  // --hooks-trust), and what cannot run is said at start. Not reading the file fails the blocks.
  it("runs the hooks of the project's .claude/settings.json as Claude Code does, once trusted", async () => {
    const ws = workspace();
    const guard = script(
      ws,
      'claude-guard.sh',
      'cat > claude-pre.json; echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"CLAUDE-GUARD: no shell here"}}\'',
    );
    const context = script(ws, 'claude-ctx.sh', 'echo \'{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"CLAUDE-CONTEXT-9"}}\'');
    mkdirSync(join(ws.dir, '.claude'));
    writeFileSync(
      join(ws.dir, '.claude', 'settings.json'),
      JSON.stringify({
        permissions: { allow: ['Bash(ls)'] },
        hooks: {
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: guard, timeout: 5 }] }],
          UserPromptSubmit: [{ hooks: [{ type: 'command', command: context }] }],
          SubagentStop: [{ hooks: [{ type: 'command', command: 'true' }] }],
        },
      }),
    );
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: 'ls' } }] }, { text: 'done' });
    const untrusted = await runAgent(['-p', 'list', '--permission-mode', 'allow'], { ws, server });
    expect(untrusted.code).toBe(0);
    expect(untrusted.stderr).toContain(`${join(ws.dir, '.claude', 'settings.json')}: hooks for SubagentStop are not run (this agent has no such event)`);
    expect(untrusted.stderr).toContain(`${join(ws.dir, '.claude', 'settings.json')} has hooks; they do not run in print mode without --hooks-trust`);
    expect(existsSync(join(ws.dir, 'claude-pre.json'))).toBe(false);

    server.clear();
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: 'ls' } }] }, { text: 'done' });
    const trusted = await runAgent(['-p', 'list', '--permission-mode', 'allow', '--hooks-trust'], { ws, server });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(requestText(1)).toContain('CLAUDE-CONTEXT-9');
    expect(requestText(2)).toContain('CLAUDE-GUARD: no shell here');
    expect(JSON.parse(read(ws, 'claude-pre.json'))).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } });
  });
});
