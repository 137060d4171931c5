import { hostname } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { runAgent, workspace, useFakeServer, type Workspace } from './inprocess.js';

// The catalogue of bad input: each case is what a person (or a script) might do wrong, and the
// exit code and the one clear error it must get. Nothing here may hang, print a stack trace,
// or touch the provider.

const server = useFakeServer();

interface Case {
  name: string;
  args: string[];
  /** .agentrc of the project. */
  rc?: Record<string, unknown>;
  /** Prepares the workspace; may return values substituted for {ID} and {PID} in args and stderr. */
  setup?: (ws: Workspace) => { id?: string; pid?: number };
  stdin?: string;
  code: number;
  /** The whole of stderr (a string) or a pattern it must match. */
  stderr: string | RegExp;
}

/** A stored session with one exchange. */
function storedSession(ws: Workspace, lease = false): { id: string; pid: number } {
  const store = openStore(ws.db);
  try {
    store.createSession({ id: 's_stored', cwd: ws.dir, provider: 'anthropic', model: 'claude-sonnet-4-5' });
    store.appendMessage('s_stored', { id: 'm1', role: 'user', kind: 'normal', createdAt: 1, blocks: [{ type: 'text', text: 'hello' }] }, 1);
    // a live process writing it: vitest's main process (the agent runs in this worker, whose own pid it would take for itself)
    if (lease) store.acquireLease('s_stored', { token: 'other-writer', pid: process.ppid, host: hostname() }, () => false);
  } finally {
    store.close();
  }
  return { id: 's_stored', pid: process.ppid };
}

const CASES: Case[] = [
  {
    name: '--resume with --continue',
    args: ['-p', 'hi', '--resume', 'abc', '--continue'],
    code: 2,
    stderr: 'agent: --resume and --continue both name the session to open: give one of them\n',
  },
  {
    name: '--fork without a session',
    args: ['-p', 'hi', '--fork'],
    code: 2,
    stderr: 'agent: --fork copies a stored session: use it with --resume <id> or --continue\n',
  },
  {
    name: '--resume of an unknown id',
    args: ['-p', 'hi', '--resume', 'nosuch'],
    code: 2,
    stderr: /^agent: --resume: no session with id "nosuch" in .* \(list them with `agent sessions`\)\n$/,
  },
  {
    name: '--resume of a session another process writes',
    args: ['-p', 'hi', '--resume', '{ID}'],
    setup: (ws) => storedSession(ws, true),
    code: 2,
    stderr: 'agent: session {ID} is in use by pid {PID} (another agent is writing it); wait for it to finish, or add --fork to continue it as a new session\n',
  },
  {
    name: 'sessions rm of a session another process writes',
    args: ['sessions', 'rm', '{ID}', '--yes'],
    setup: (ws) => storedSession(ws, true),
    code: 2,
    stderr: 'agent: session {ID} is in use by pid {PID}: not deleted (end that agent first)\n',
  },
  {
    name: 'sessions with an unknown subcommand',
    args: ['sessions', 'frob'],
    code: 2,
    stderr: 'agent: unknown subcommand "sessions frob"; the subcommands are list, show, export, search, rm\n',
  },
  {
    name: 'sessions with a misspelt subcommand',
    args: ['sessions', 'shwo'],
    code: 2,
    stderr: 'agent: unknown subcommand "sessions shwo" (did you mean show?); the subcommands are list, show, export, search, rm\n',
  },
  {
    name: 'sessions show of an unknown id',
    args: ['sessions', 'show', 'nosuch'],
    code: 2,
    stderr: 'agent: no session with id "nosuch" (list them with `agent sessions`)\n',
  },
  {
    name: '--debug under /proc (cannot be created)',
    args: ['-p', 'hi', '--debug', '/proc/agent-nope/debug.log'],
    code: 2,
    stderr: 'agent: cannot write debug log /proc/agent-nope/debug.log: no such file or directory\n',
  },
  {
    name: '--debug naming a directory',
    args: ['-p', 'hi', '--debug', 'logs'],
    setup: (ws) => (mkdirSync(join(ws.dir, 'logs')), {}),
    code: 2,
    stderr: 'agent: cannot write debug log logs: it is a directory\n',
  },
  {
    name: '--debug below a file',
    args: ['-p', 'hi', '--debug', 'notes.txt/debug.log'],
    setup: (ws) => (writeFileSync(join(ws.dir, 'notes.txt'), 'x'), {}),
    code: 2,
    stderr: 'agent: cannot write debug log notes.txt/debug.log: a part of the path is not a directory\n',
  },
  { name: '--add-dir that does not exist', args: ['-p', 'hi', '--add-dir', 'no/such'], code: 2, stderr: 'agent: --add-dir: no/such does not exist\n' },
  {
    name: '--add-dir naming a file',
    args: ['-p', 'hi', '--add-dir', 'notes.txt'],
    setup: (ws) => (writeFileSync(join(ws.dir, 'notes.txt'), 'x'), {}),
    code: 2,
    stderr: 'agent: --add-dir: notes.txt is not a directory\n',
  },
  {
    name: 'a negative timeout in .agentrc',
    args: ['-p', 'hi'],
    rc: { timeouts: { idleMs: -5 } },
    code: 2,
    stderr: /^agent: .*\.agentrc: line 1, column \d+: field "timeouts\.idleMs": Too small: expected number to be >0\n$/,
  },
  {
    name: 'an unknown timeout key',
    args: ['-p', 'hi'],
    rc: { timeouts: { readMs: 5 } },
    code: 2,
    stderr: /^agent: .*\.agentrc: line 1, column \d+: field "timeouts\.readMs": unknown key \(see \.agentrc\.example for the keys\)\n$/,
  },
  {
    name: 'a variable name with a dash in bash.stripEnv',
    args: ['-p', 'hi'],
    rc: { bash: { stripEnv: ['MY-TOKEN'] } },
    code: 2,
    stderr: /^agent: .*\.agentrc: line 1, column \d+: field "bash\.stripEnv\.0": must be an environment variable name, or a prefix ending in \*\n$/,
  },
  {
    name: 'permissions.readPaths not a list',
    args: ['-p', 'hi'],
    rc: { permissions: { readPaths: '/tmp' } },
    code: 2,
    stderr: /^agent: .*\.agentrc: line 1, column \d+: field "permissions\.readPaths": Invalid input: expected array, received string\n$/,
  },
  { name: 'no prompt in print mode', args: ['-p'], stdin: '', code: 2, stderr: 'agent: no prompt: pass it as `agent -p "<prompt>"` or on standard input\n' },
  {
    name: '--max-steps 0',
    args: ['-p', 'hi', '--max-steps', '0'],
    code: 2,
    stderr: "error: option '--max-steps <n>' argument '0' is invalid. must be a positive whole number\n",
  },
];

describe('bad input catalogue', () => {
  it.each(CASES)('$name', async (c) => {
    const ws = workspace(c.rc ?? {});
    const vars = c.setup?.(ws) ?? {};
    const fill = (s: string): string => s.replaceAll('{ID}', vars.id ?? '').replaceAll('{PID}', String(vars.pid ?? ''));
    const r = await runAgent(c.args.map(fill), { ws, server, ...(c.stdin !== undefined ? { stdin: c.stdin } : {}) });
    expect(r.code, r.stderr).toBe(c.code);
    if (typeof c.stderr === 'string') expect(r.stderr).toBe(fill(c.stderr));
    else expect(r.stderr).toMatch(c.stderr);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(server.requests).toHaveLength(0);
  });
});
