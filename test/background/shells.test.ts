import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BackgroundCommands } from '../../src/background/commands.js';
import { createKillShellTool } from '../../src/background/killShell.js';
import { tasksCommand } from '../../src/background/tasksCommand.js';
import { childGroups } from '../../src/processes/groups.js';
import { createBashTool } from '../../src/tools/bash.js';
import { createRecallTool } from '../../src/tools/recall.js';
import type { AnyTool } from '../../src/tools/types.js';
import { call, perSession, sessionCtx, tree } from '../tools/helpers.js';

const bash = perSession((lent) => createBashTool({ timeoutMs: 20_000, maxTimeoutMs: 60_000, maxOutputChars: 30_000 }, lent));
const recall = perSession((lent) => createRecallTool({}, lent));

function setup(opts: { maxRunning?: number; capChars?: number } = {}) {
  const root = tree();
  const commands = new BackgroundCommands({
    root: join(root, 'bg'),
    maxRunning: opts.maxRunning ?? 10,
    redact: (t) => t.replaceAll('sk-secret', '[REDACTED]'),
  });
  const shells = commands.open('s1');
  return { root, commands, shells, context: sessionCtx(root, { background: shells }) };
}

async function until<T>(get: () => T | undefined, what: string, withinMs = 10_000): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The promise's value, or a failure naming `what` after 10 s (far above the 300 ms the answer takes; never the test's timeout). */
function within<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`never came: ${what}`)), 10_000)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

describe('background commands', () => {
  it('onExit tells each command that exits on its own, once, as it exits; not one that was stopped', async () => {
    const { commands, shells, context } = setup();
    const told: string[] = [];
    const off = commands.onExit((r) => told.push(`${r.id} ${r.state} ${r.code}`));
    await within(call(bash, { command: 'echo short; exit 4', run_in_background: true }, context), 'the first answer');
    await within(call(bash, { command: 'echo long; sleep 30', run_in_background: true }, context), 'the second answer');
    await until(() => (told.length > 0 ? told : undefined), 'the exit of b1');
    expect(told).toEqual(['b1 exited 4']);
    // one who listens from now on is not told of b1, which exited before
    const toldLate: string[] = [];
    const offLate = commands.onExit((r) => toldLate.push(`${r.id} ${r.state} ${r.code}`));
    expect(await shells.stop('b2')).toBe(true);
    await until(() => (shells.running().length === 0 ? true : undefined), 'b2 stopped');
    // mutation: onExit without its state check tells "b2 stopped" too
    expect(told).toEqual(['b1 exited 4']);
    expect(toldLate).toEqual([]);
    await within(call(bash, { command: 'exit 5', run_in_background: true }, context), 'the third answer');
    await until(() => (toldLate.length > 0 ? toldLate : undefined), 'the exit of b3');
    expect(toldLate).toEqual(['b3 exited 5']);
    expect(told).toEqual(['b1 exited 4', 'b3 exited 5']);
    offLate();
    off();
  });

  it('answers at once with an id and the first lines, archives the output, and tells the end with its last lines', async () => {
    const { root, shells, context } = setup();
    // it goes on only once the test creates `go`: the answer must come while it waits
    const out = await within(
      call(bash, { command: 'echo ready sk-secret; while [ ! -e go ]; do sleep 0.05; done; seq 1 30; exit 3', run_in_background: true }, context),
      'the answer',
    );
    // mutation: ignoring run_in_background makes the call wait for `go`, which never comes: `within` fails
    expect(out.isError).toBe(false);
    expect(out.content).toMatch(/^Started in the background as b1 \(pid \d+\): echo ready/);
    expect(out.content).toContain('First lines:\nready [REDACTED]');
    expect(shells.running().map((r) => r.id)).toEqual(['b1']);
    writeFileSync(join(root, 'go'), '');
    const notice = await until(() => shells.notices()[0], 'the end notice');
    expect(notice).toMatch(/^\[Background command b1 ended: exit code 3 after [\d.]+m?s\]\n\$ echo ready \[REDACTED\]/);
    expect(notice).toContain('Last lines of its output:\n21\n22');
    expect(notice).toContain('30\nIts whole output: Recall id="b1"');
    // given once
    expect(shells.notices()).toEqual([]);
    // redacted in the file too
    expect(readFileSync(shells.list()[0]!.file, 'utf8')).toContain('ready [REDACTED]\n1\n');
  });

  it('Recall reads a running command by range, by pattern and what is new since the last read', async () => {
    const { shells, context } = setup();
    await call(bash, { command: 'for i in $(seq 1 5); do echo line $i; done; echo marker-A; sleep 30', run_in_background: true }, context);
    await until(() => (shells.output('b1')?.text.includes('marker-A') ? true : undefined), 'the first output');
    const range = await call(recall, { id: 'b1', offset: 2, limit: 2 }, context);
    expect(range.content).toContain('lines 2-3 of 6:\nline 2\nline 3');
    const grep = await call(recall, { id: 'b1', pattern: 'marker', context: 0 }, context);
    expect(grep.content).toContain('6: marker-A');
    // since the last read: lines 4 on (the range read stopped at 3)
    const fresh = await call(recall, { id: 'b1', since_last_read: true }, context);
    expect(fresh.content).toContain('line 4\nline 5\nmarker-A');
    expect(fresh.content).not.toContain('line 3');
    const none = await call(recall, { id: 'b1', since_last_read: true }, context);
    expect(none.content).toContain('has no new output: 6 lines so far, all read');
    // a search finds the running command's output without any archive; an id neither names says there is none
    const found = await call(recall, { query: 'marker-A' }, context);
    expect(found.isError).toBe(false);
    expect(found.content).toMatch(/^Archive hits 1-1 for "marker-A".*\n\n1\. id: b1 — background command .*\(running\)/);
    const unknown = await call(recall, { id: 'b9' }, context);
    expect(unknown.isError).toBe(true);
    expect(unknown.content).toMatch(/^Nothing has been archived in this session yet/);
    expect(await shells.stop('b1')).toBe(true);
    const notice = await until(() => shells.notices()[0], 'the stop notice');
    expect(notice).toContain('b1 ended: stopped');
    // mutation: a stop that leaves the group running keeps it in the registry
    expect(childGroups().some((g) => g.label.includes('marker-A'))).toBe(false);
  });
  // mutations (recall.ts): `page.lastLine === undefined` (the read never marked) fails the reads since the last one;
  // `input.id === undefined || !session.background` without an archive fails the search

  it('moves a foreground command past its timeout to the background, its late output archived; sleep and git are killed instead', async () => {
    const { shells, context } = setup();
    const out = await call(bash, { command: 'echo early; sleep 1; echo late', timeout: 400 }, context);
    // mutation: killing at the timeout (the old behaviour) answers "timed out" with isError
    expect(out.isError).toBe(false);
    expect(out.content).toMatch(/still running after 400ms, so it was moved to the background as b1/);
    expect(out.content).toContain('Output so far:\nearly');
    const notice = await until(() => shells.notices()[0], 'the end notice');
    expect(notice).toContain('Last lines of its output:\nearly\nlate');
    const killed = await call(bash, { command: 'sleep 5', timeout: 300 }, context);
    expect(killed.content).toContain('Command timed out after 300ms');
    expect(shells.list()).toHaveLength(1);
  });

  it('Ctrl+B moves the running foreground command to the background at once, its output so far returned', async () => {
    const { commands, shells, context } = setup();
    let seen = '';
    const answer = call(bash, { command: 'echo before-move; sleep 30' }, { ...context, onProgress: (t) => (seen += t) });
    await until(() => (seen.includes('before-move') ? true : undefined), 'the first output');
    // mutation: a Bash that registers no mover leaves nothing to move (false) and the call waits 30 s
    expect(commands.moveForeground()).toBe(true);
    const out = await answer;
    expect(out.content).toMatch(/^The person moved the command to the background as b1; it goes on running[\s\S]*Output so far:\nbefore-move$/);
    expect(shells.running().map((r) => r.id)).toEqual(['b1']);
    expect(commands.moveForeground()).toBe(false);
    await commands.stopAll();
  });

  it('refuses a command beyond the limit on running ones', async () => {
    const { commands, context } = setup({ maxRunning: 1 });
    await call(bash, { command: 'sleep 30', run_in_background: true }, context);
    const second = await call(bash, { command: 'sleep 30', run_in_background: true }, context);
    expect(second).toEqual({ content: expect.stringMatching(/^Not started: 1 background commands are running, the limit/), isError: true });
    expect(await commands.stopAll()).toBe(1);
  });

  it('loses nothing while its reads rest between batches: a burst past the pipe buffer, then the last line at exit', async () => {
    const { shells, context } = setup();
    // the first line is read at once and reading rests; the burst (589 KB) fills the 64 KB pipe
    // buffer meanwhile and waits there; "last" comes right before the exit, while reading rests again
    await call(bash, { command: 'echo first; sleep 0.05; seq 1 100000; sleep 0.05; echo last', run_in_background: true }, context);
    const notice = await until(() => shells.notices()[0], 'the end notice');
    // mutation: reading that is not started again after a rest (or at the exit) never ends: no notice, `until` fails;
    // one that drops what came in a rest misses lines here
    expect(notice).toContain('Last lines of its output:');
    expect(notice).toMatch(/100000\nlast\n/);
    const lines = ['first', ...Array.from({ length: 100_000 }, (_, i) => String(i + 1)), 'last'];
    expect(readFileSync(shells.list()[0]!.file, 'utf8')).toBe(`${lines.join('\n')}\n`);
  });

  it('archives a long stream up to the cap without keeping it in memory', async () => {
    const { shells, context } = setup();
    const big = 'yes 0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz | head -c 12000000';
    await call(bash, { command: big, run_in_background: true }, context);
    await until(() => shells.notices()[0], 'the end', 30_000);
    const r = shells.list()[0]!;
    expect(r.bytes).toBe(12_000_000);
    // the cap (10 MiB of characters) and no more in the file
    expect(statSync(r.file).size).toBe(10 * 1024 * 1024);
    expect(shells.output('b1')?.text).toMatch(/\[the archive's cap was reached: the 1514240 characters printed after that were not kept\]\n$/);
  });

  it('after a restore, a command that was running is ended with its exit status unknown, and its output still reads', async () => {
    const { root, shells, context } = setup();
    await call(bash, { command: 'echo kept; sleep 30', run_in_background: true }, context);
    await until(() => (shells.output('b1')?.text.includes('kept') ? true : undefined), 'output');
    const saved = JSON.parse(JSON.stringify(shells.list()));
    await shells.stopAll();
    const again = new BackgroundCommands({ root: join(root, 'bg'), maxRunning: 10, redact: (t) => t }).open('s1');
    again.restore(saved);
    expect(again.output('b1')).toMatchObject({ label: 'background command `echo kept; sleep 30` (ended, exit status unknown)', running: false });
    expect(again.output('b1')?.text).toBe('kept\n');
    expect(again.notices()).toEqual([]);
  });

  it("/tasks names a sub-agent's command by <session>/<id>; a child handing its command over renumbers it in the parent, which is told", async () => {
    const { root, commands, shells } = setup();
    const child = commands.open('child-1');
    const childCtx = sessionCtx(root, { background: child });
    await call(bash, { command: 'sleep 30', run_in_background: true }, sessionCtx(root, { background: shells }));
    await call(bash, { command: 'sleep 31', run_in_background: true }, childCtx);
    await call(bash, { command: 'sleep 32', run_in_background: true }, childCtx);
    // mutation: find() ignoring the session part stops the parent's b1 (sleep 30) instead
    expect(await tasksCommand(commands, 's1', 'stop child-1/b1')).toContain('Stopped b1 (sleep 31)');
    expect(await tasksCommand(commands, 's1', 'stop child-2/b1').catch((e: Error) => e.message)).toBe('no background command child-2/b1; /tasks lists them');
    expect(shells.running().map((r) => r.command)).toEqual(['sleep 30']);
    // mutation: a handTo that keeps the child's id collides with the parent's b1
    await commands.close('child-1', { id: 's1', label: 'runner: serve', handBackground: true });
    expect(shells.running().map((r) => `${r.id} ${r.command}`)).toEqual(['b1 sleep 30', 'b2 sleep 32']);
    expect(shells.notices().join('\n')).toMatch(/handed you its background command still running: b2 `sleep 32` \(pid \d+; b2 in the sub-agent\)/);
    // mutation: a detached command still in the registry would be stopped by the program's end
    const left = commands.detachAll();
    expect(left.map((r) => r.id)).toEqual(['b1', 'b2']);
    expect(childGroups().filter((g) => left.some((r) => r.pid === g.pgid))).toEqual([]);
    for (const r of left) process.kill(-r.pid, 'SIGKILL');
  });
  it('tells the end of a command stopped otherwise, never of one the model stopped with KillShell (it knows)', async () => {
    const { shells, context } = setup();
    const kill = createKillShellTool(shells) as AnyTool;
    await call(bash, { command: 'sleep 30', run_in_background: true }, context);
    await call(bash, { command: 'sleep 31', run_in_background: true }, context);
    const out = await call(kill, { shell_id: 'b1' }, context);
    expect(out.content).toMatch(/^Stopped b1 \(`sleep 30`\)/);
    expect(await shells.stop('b2')).toBe(true);
    const told: string[] = [];
    await until(() => (told.push(...shells.notices()), shells.running().length === 0 && told.length > 0 ? true : undefined), 'both ended');
    expect(shells.list().map((r) => `${r.id} ${r.state}`)).toEqual(['b1 stopped', 'b2 stopped']);
    expect(told.length).toBe(1);
    expect(told[0]).toContain('b2 ended: stopped');
  });
});
// Mutation checked (KillShell): `shells.stop(id, false)` made `shells.stop(id)` in killShell.ts fails the
// KillShell case (b1's end is told too).
