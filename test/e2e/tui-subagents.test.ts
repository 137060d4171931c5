import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, runAgent, workspace, useFakeServer, type Workspace } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';
import { describeRegimeFree } from './regime.js';

// Sub-agents in the TUI (in-process, terminal.ts): the prompt attaches a plan file whose directives make
// the fake model call Task twice; the children run slowly enough to watch their live rows, one
// child's Bash call asks in the main prompt (labelled with the child) and is answered, and
// Ctrl+O on the finished Task rows prints each child's transcript.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

const task = (description: string, prompt: string): string => `@task ${JSON.stringify({ description, prompt })}`;

/** Starts the TUI and sends a prompt attaching plan.txt, whose lines are the fake model's directives. */
async function followPlan(ws: Workspace, plan: string[]): Promise<{ env: NodeJS.ProcessEnv; t: Tmux }> {
  writeFileSync(join(ws.dir, 'plan.txt'), `${plan.join('\n')}\n`);
  const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
  const t = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-6'], cwd: ws.dir, env });
  term = t;
  await t.waitFor('Ask for a change');
  t.type('follow @plan.txt');
  await t.waitFor('▸ @plan.txt');
  t.keys('Tab');
  t.keys('Enter');
  return { env, t };
}

(hasTmux ? describeRegimeFree : describe.skip)('sub-agents in the TUI', () => {
  it('shows live child rows, asks a child’s approval in the main prompt, and Ctrl+O prints a child’s transcript', async () => {
    const ws = workspace();
    writeFileSync(join(ws.dir, 'notes.md'), 'the notes say NOTES-LINE-77\n');
    const { env, t: started } = await followPlan(ws, [
      task('run the check', '@slow 60\n@bash echo child-bash-ok\n@report REPORT-CHECK done'),
      task('read the notes', '@slow 60\n@glob *.md\n@then\n@read notes.md\n@report REPORT-NOTES done'),
      '@report both children reported',
    ]);
    let t = started;

    // live rows: both Task calls running, with the child's tokens and model under each
    await t.waitFor(/Task run the check/);
    await t.waitFor(/Task read the notes/);
    await t.waitFor(/\d+ tools? · [\d.]+k? tokens · claude-sonnet-4-6/);
    // issue 30: one line per child, rewritten in place (updates piled up as near-identical lines
    // under the row, the first saying "waiting for a slot" though no child waited); a Task tool
    // that writes each update as a new line fails the count
    const live = await t.waitFor(/1 tool · [\d.]+k? tokens · claude-sonnet-4-6 · Glob/);
    expect(live.match(/^\s*(⎿\s*)?\d+ tools? · /gm)?.length ?? 0, live).toBeLessThanOrEqual(2);
    expect(live).not.toContain('waiting for a slot');

    // the child's Bash call asks in the main prompt, labelled with the child
    await t.waitFor('sub-agent explore: run the check asks:');
    expect(t.screen()).toContain('echo child-bash-ok');
    t.keys('Enter'); // allow once
    await t.waitFor('both children reported');
    await t.waitFor(/✓ Task run the check/);
    await t.waitFor(/✓ Task read the notes/);

    // Ctrl+O shows first what the turn's rows promise, though the model thought after them (issue 49
    // #11): the newest Task row's child transcript, then the other child's (test/ui/thinking.test.tsx
    // pins when the thinking comes)
    t.keys('C-o');
    await t.waitFor("the sub-agent's transcript");
    await t.waitFor('NOTES-LINE-77');
    t.keys('C-o');
    await t.waitFor('child-bash-ok');
    expect(t.screen()).toMatch(/→ Bash \{"command":"echo child-bash-ok"\}/);

    // resumed: the Task rows come back collapsed (header and the report's first line), and
    // Ctrl+O still prints a child's transcript
    t.keys('C-d');
    expect(await t.waitForExit()).toBe(0);
    t.kill();
    t = term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-6', '--continue'], cwd: ws.dir, env });
    await t.waitFor('Ask for a change');
    await t.waitFor(/✓ Task read the notes[^\n]*\n\s*⎿ REPORT-NOTES done \(\+\d+ lines\)/);
    expect(t.screen()).not.toContain('NOTES-LINE-77');
    t.keys('C-o');
    await t.waitFor('NOTES-LINE-77');
  }, 60_000);

  it('Esc cancels all three running children cleanly: each row ends interrupted, the prompt comes back, the children are stored', async () => {
    const ws = workspace();
    const slowChild = (n: string): string => task(`slow ${n}`, `@slow 250\n@glob *.txt\n@then\n@glob *.md\n@then\n@glob *.ts\n@report never ${n}`);
    const { t } = await followPlan(ws, [...['one', 'two', 'three'].map(slowChild), '@report not reached']);
    await t.waitFor(/Task slow one[\s\S]*Task slow two[\s\S]*Task slow three/);
    await t.waitFor(/\d+ tools? · [\d.]+k? tokens/);
    t.keys('Escape');
    await t.waitFor(/interrupted/i);
    await t.waitFor('Ask for a change');
    const screen = await t.waitFor(/Task slow three[^\n]*\n[^\n]*interrupted/);
    for (const n of ['one', 'two', 'three']) expect(screen).toMatch(new RegExp(`Task slow ${n}[^\\n]*\\n[^\\n]*interrupted`));
    expect(screen).not.toContain('not reached');
    // no child is left running: none takes a step once the turn has ended. A request a child wrote
    // before the interruption may reach this server (in the test's own, loaded process) only now;
    // a step after it would carry a tool result not sent before
    const results = (from: number): string[] =>
      server.requests
        .slice(from)
        .flatMap((q) => (q.view?.messages ?? []).flatMap((m) => m.blocks.flatMap((b) => (b.type === 'tool_result' ? [b.toolUseId] : []))));
    const after = server.requests.length;
    const sent = new Set(results(0));
    await new Promise((r) => setTimeout(r, 1_000));
    expect(results(after).filter((id) => !sent.has(id))).toEqual([]);
    t.keys('C-d');
    expect(await t.waitForExit()).toBe(0);
    const list = await runAgent(['sessions', 'list'], { ws, server });
    expect(list.stdout.trim().split('\n').length, list.stdout + list.stderr).toBeGreaterThan(1);
    const id = list.stdout.trim().split('\n')[1]!.split('\t')[0]!;
    const show = await runAgent(['sessions', 'show', id], { ws, server });
    expect(show.stdout).toMatch(/Sub-agents \(3\)/);
  });

  it("a child's own task list shows indented under its running row, never as the session's list above the prompt", async () => {
    const ws = workspace();
    mkdirSync(join(ws.dir, '.agent', 'agents'), { recursive: true });
    writeFileSync(
      join(ws.dir, '.agent', 'agents', 'worker.md'),
      '---\nname: worker\ndescription: Works through steps.\ntools: Glob, TodoWrite\n---\nWork through the steps.\n',
    );
    const list = {
      todos: [
        { content: 'Look around', status: 'completed' },
        { content: 'Count the files', status: 'in_progress', activeForm: 'Counting the files' },
      ],
    };
    const child = `@slow 40\n@call TodoWrite ${JSON.stringify(list)}\n@then\n@glob *.txt\n@then\n@glob *.md\n@report CHILD-COUNTED`;
    const { t } = await followPlan(ws, [
      `@task ${JSON.stringify({ description: 'count the files', prompt: child, agent: 'worker' })}`,
      '@report parent reported',
    ]);
    const screen = await t.waitFor('its tasks · 1 of 2 done');
    const rows = screen.split('\n');
    const row = rows.findIndex((l) => /Task worker: count the files/.test(l));
    const item = rows.findIndex((l) => l.includes('◼ Counting the files'));
    expect(row, screen).toBeGreaterThanOrEqual(0);
    expect(item, screen).toBeGreaterThan(row);
    expect(rows[item]!.indexOf('◼')).toBeGreaterThan(rows[row]!.indexOf('Task'));
    expect(screen).not.toContain('Tasks ·');
    await t.waitFor('parent reported');
    // the row finished: its list went with it
    expect(t.screen()).not.toContain('its tasks');
  }, 60_000);
});
// Mutations that fail the last test: the child's TodoWrite not followed (no "its tasks"), the child's list taken as
// the parent's ("Tasks ·" above the prompt), the list left on screen after the row ends.
