import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, MODEL, useFakeServer, workspace, type Workspace } from './harness.js';
import { hasTmux, Tmux } from './tmux.js';

// A full disk must not lose a session while exit says it was saved. The database lives on a real
// 2 MB tmpfs, mounted in a mount namespace of the agent's own (unshare -m, so nothing outside
// sees it, and it goes when the agent does). A UserPromptSubmit hook fills the disk when a prompt
// says "fill-the-disk" (and empties it on "free-the-disk"), so the disk fills exactly between two
// turns, after the database was set up. Before the fix: no count anywhere, exit printed "Session …
// saved. To continue it" with rc 0, and -p exited 0; the refused messages were gone.

const server = useFakeServer();
const canMount = spawnSync('unshare', ['-m', 'sh', '-c', 'd=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs "$d" && umount "$d" && rmdir "$d"']).status === 0;
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

/** The command that runs `args` with the workspace's data directory on a 2 MB tmpfs of its own. */
function onTmpfs(ws: Workspace, args: string[]): string[] {
  const data = join(ws.root, 'data');
  mkdirSync(data, { recursive: true });
  return ['unshare', '-m', 'sh', '-c', `mount -t tmpfs -o size=2m tmpfs '${data}' && exec "$@"`, 'sh', ...args];
}

/** The hook: "fill-the-disk" fills the tmpfs (the disk is full when the prompt is stored), "free-the-disk" empties it. */
function diskHooks(ws: Workspace): void {
  const data = join(ws.root, 'data');
  const hook = `input=$(cat); case "$input" in *fill-the-disk*) cat /dev/zero > '${data}/filler' 2>/dev/null;; *free-the-disk*) rm -f '${data}/filler';; esac; exit 0`;
  writeFileSync(join(ws.home, '.agentrc'), JSON.stringify({ hooks: { UserPromptSubmit: [{ command: hook }] } }));
}

describe.skipIf(!canMount)('a full disk (a real tmpfs)', () => {
  // 3: the date note, the prompt and the reply (the session itself could not be created)
  it('-p: the answer is printed, stderr says how many messages were not saved, exit 1', async () => {
    const ws = workspace();
    diskHooks(ws);
    const [cmd, ...rest] = onTmpfs(ws, [process.execPath, AGENT_BIN, '-p', 'fill-the-disk now', '--model', MODEL.anthropic]);
    server.enqueue({ text: 'the answer you still get' });
    // not spawnSync: the fake provider answers from this process
    const child = spawn(cmd!, rest, { cwd: ws.dir, env: agentEnv({ ws, server }), stdio: ['ignore', 'pipe', 'pipe'] });
    const r = { stdout: '', stderr: '', status: null as number | null };
    child.stdout.on('data', (d: Buffer) => (r.stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (r.stderr += d.toString()));
    r.status = await new Promise<number | null>((done) => child.on('close', done));
    expect(r.stdout).toBe('the answer you still get\n');
    expect(r.stderr).toMatch(/agent: error: 3 messages of session s_\S+ are not saved in the database \(.*full.*\); they are lost now that this run ends\./);
    expect(r.stderr).not.toMatch(/saved\. To continue/);
    expect(r.status, r.stderr).toBe(1);
  }, 40_000);

  it.skipIf(!hasTmux)(
    'TUI: the footer counts unsaved messages, later turns retry them, and exit asks: retry, or write the transcript where the person says',
    async () => {
      const ws = workspace();
      diskHooks(ws);
      const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
      term = new Tmux({
        command: onTmpfs(ws, [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-5', '--hooks-trust']),
        cwd: ws.dir,
        env,
        height: 40,
        width: 200,
      });
      await term.waitFor('ctrl+c ×2 exit');
      const turn = async (prompt: string, reply: string): Promise<void> => {
        server.enqueue({ text: reply });
        term!.type(prompt);
        term!.keys('Enter');
        await term!.waitFor(reply);
      };
      await turn('hello', 'first reply, saved');
      expect(term.screen()).not.toContain('unsaved');
      await turn('fill-the-disk please', 'second reply, not saved');
      await term.waitFor('unsaved: 2');
      expect(term.screen()).toMatch(/Could not save to [\s\S]*full/);
      await turn('and a third', 'third reply, not saved either');
      await term.waitFor('unsaved: 4');

      // exit: never "saved"; the count, then the choices (7 messages in the file: the date note too)
      term.keys('C-d');
      await term.waitFor('q: quit anyway >');
      expect(term.screen()).toMatch(/4 messages of session s_\S+ are not saved in the database \(Could not append a message: the disk holding/);
      expect(term.screen().replace(/\s+/g, ' ')).toContain('They are lost if you quit now.');
      term.type('r');
      term.keys('Enter');
      // still full: asked again
      await term.waitFor(/q: quit anyway >[\s\S]*q: quit anyway >/);
      term.type('j');
      term.keys('Enter');
      await term.waitFor('Write it to [');
      const rescued = join(ws.root, 'rescued.jsonl');
      term.type(rescued);
      term.keys('Enter');
      expect(await term.waitForExit(15_000)).toBe(0);
      expect(term.screen().replace(/\n/g, '')).toContain(`Wrote the whole transcript (7 messages) to ${rescued}.`);
      expect(term.screen()).not.toMatch(/saved\. To continue it/);
      const lines = readFileSync(rescued, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; blocks?: { text?: string }[] });
      const texts = lines.flatMap((l) => l.blocks?.map((b) => b.text ?? '') ?? []).join('\n');
      for (const t of ['hello', 'fill-the-disk please', 'second reply, not saved', 'and a third', 'third reply, not saved either']) expect(texts).toContain(t);
    },
    90_000,
  );

  it.skipIf(!hasTmux)(
    'TUI: once the disk has room again, the next turn saves every pending message and exit says "saved"',
    async () => {
      const ws = workspace();
      diskHooks(ws);
      const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
      term = new Tmux({
        command: onTmpfs(ws, [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-5', '--hooks-trust']),
        cwd: ws.dir,
        env,
        height: 40,
        width: 200,
      });
      await term.waitFor('ctrl+c ×2 exit');
      server.enqueue({ text: 'not saved yet' });
      term.type('fill-the-disk please');
      term.keys('Enter');
      // 2 (the prompt and the reply) when the session's row was written before the disk filled, 3
      // (its date note too) when it was not: the hook races the row (the counts are the first
      // test's subject; this one's is that they are all saved later)
      await term.waitFor(/unsaved: [23]\b/);
      server.enqueue({ text: 'all saved now' });
      term.type('free-the-disk');
      term.keys('Enter');
      await term.waitFor('every pending message is saved');
      expect(term.screen().split('\n').slice(-4).join('\n')).not.toContain('unsaved');
      term.keys('C-d');
      expect(await term.waitForExit(15_000)).toBe(0);
      expect(term.screen()).toMatch(/Session s_\S+ saved\. To continue it/);
      expect(existsSync(join(ws.root, 'data', 'filler'))).toBe(false);
    },
    90_000,
  );
});
