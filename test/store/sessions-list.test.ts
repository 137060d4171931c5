import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ShadowRepo } from '../../src/checkpoints/git.js';
import { findProject } from '../../src/checkpoints/project.js';
import { exportSessionCommand, listSessionsCommand, removeSessionCommand, showSessionCommand } from '../../src/sessionsCommand.js';
import type { Message } from '../../src/llm/messages.js';
import { openStore } from '../../src/store/index.js';
import { autoChange, microChange, tempDir, toolPair, user, assistant, viewAfter } from './helpers.js';

// `agent sessions` over a real store: the list says when it stops short, and counts compactions
// as `sessions show` lists them.

afterEach(() => vi.restoreAllMocks());

function capture(): { stdout: () => string; stderr: () => string } {
  let o = '';
  let e = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((o += String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((e += String(s)), true));
  return { stdout: () => o, stderr: () => e };
}

describe('agent sessions', () => {
  it('says when it lists fewer sessions than there are, and counts the compactions `sessions show` lists (micro ones are not)', async () => {
    const { dir } = tempDir();
    const db = join(dir, 'agent.db');
    const store = openStore(db);
    for (const id of ['s_a', 's_b', 's_c']) store.createSession({ id, cwd: '/repo', provider: 'anthropic', model: 'claude-test' });
    // s_c: a micro compaction, then an auto one
    let visible: Message[] = [];
    for (let t = 0; t < 4; t++) visible.push(user(`turn ${t}`), ...toolPair('Bash', { command: `step ${t}` }, `out ${t}\n`.repeat(20)), assistant(`done ${t}`));
    for (const m of visible) store.appendMessage('s_c', m, 7);
    const micro = microChange(visible, 1)!;
    store.applyCompaction('s_c', micro);
    visible = viewAfter(visible, micro);
    store.applyCompaction('s_c', autoChange(visible, 1)!);
    store.close();

    const all = capture();
    expect(await listSessionsCommand({ outputFormat: 'text', db, limit: 5 })).toBe(0);
    const row = all
      .stdout()
      .split('\n')
      .find((l) => l.startsWith('s_c\t'))!;
    // mutation: the stored counter (micro included) says 2
    expect(row.split('\t')[3]).toBe('1');
    expect(all.stderr()).toBe('');
    vi.restoreAllMocks();

    const shown = capture();
    await showSessionCommand('s_c', { outputFormat: 'text', db });
    expect(shown.stdout()).toContain('## Compactions (1)');
    vi.restoreAllMocks();

    const two = capture();
    await listSessionsCommand({ outputFormat: 'text', db, limit: 2 });
    expect(two.stdout().trim().split('\n')).toHaveLength(3);
    // mutation: listing exactly --limit rows says nothing of the third
    expect(two.stderr()).toBe('agent: the 2 most recent sessions are listed; there are more: add --limit <n> to list more\n');
  });

  it('`sessions show` lists what the sandbox denied a session, under each command, and nothing for a session it denied nothing', async () => {
    const { dir } = tempDir();
    const db = join(dir, 'agent.db');
    const store = openStore(db);
    for (const id of ['s_denied', 's_clean']) store.createSession({ id, cwd: '/repo', provider: 'anthropic', model: 'claude-test' });
    store.sandboxViolations.save('s_denied', { toolUseId: 'tu_1', command: 'touch ~/x', lines: ['write denied: /home/me/x'] });
    store.close();
    const denied = capture();
    await showSessionCommand('s_denied', { outputFormat: 'text', db });
    expect(denied.stdout()).toContain('# Sandbox violations (1)');
    // the section, each denial under its time and command, closed by a blank line (the sub-agents' heading may follow)
    expect(denied.stdout()).toMatch(/# Sandbox violations \(1\)\n- \d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}write denied: \/home\/me\/x {2}\(tu_1: touch ~\/x\)\n\n$/);
    vi.restoreAllMocks();
    const clean = capture();
    await showSessionCommand('s_clean', { outputFormat: 'text', db });
    expect(clean.stdout()).not.toContain('Sandbox violations');
  });
});

describe('agent sessions show, export, remove', () => {
  it('`sessions show --spilled` puts the whole archived file after a spilled @mention, and leaves typed text alone', async () => {
    const { dir } = tempDir();
    const db = join(dir, 'agent.db');
    const store = openStore(db);
    store.createSession({ id: 's_att', cwd: '/repo', provider: 'anthropic', model: 'claude-test' });
    const handle = store.spilled.save('s_att', {
      toolUseId: 'mention',
      toolName: 'FileRead',
      summary: 'big.log',
      content: 'every line of big.log',
      isError: false,
      totalChars: 21,
      totalLines: 1,
      totalBytes: 21,
    });
    const mention = user('the typed words');
    mention.blocks.push({ type: 'text', text: '<file big.log, first lines>\nline 1', origin: { kind: 'attachment', label: 'big.log', archived: handle } });
    store.appendMessage('s_att', mention, 7);
    store.close();
    const shown = capture();
    expect(await showSessionCommand('s_att', { outputFormat: 'text', db, spilled: true })).toBe(0);
    expect(shown.stdout()).toContain(`the typed words\n<file big.log, first lines>\n[the whole file, ${handle}:]\nevery line of big.log`);
  });
  // mutation: `block.origin?.kind !== 'attachment'` (sessionsCommand.ts) fails it

  it('`sessions show` says the goal as saved and the checkpoints under the turns they belong to (a turn gone by its id)', async () => {
    const { dir } = tempDir();
    const db = join(dir, 'agent.db');
    const project = join(dir, 'project');
    mkdirSync(project);
    const store = openStore(db);
    store.createSession({ id: 's_cp', cwd: project, provider: 'anthropic', model: 'claude-test', title: 'Checkpointed' });
    const first = user('fix   the parser\nplease');
    const second = user('and the lexer, which reads the tokens far too slowly');
    const history = [first, assistant('done'), second, assistant('done too')];
    for (const m of history) store.appendMessage('s_cp', m, 7);
    // the first turn compacted away: its checkpoint still names it, counted among the turns (archived ones too)
    store.applyCompaction('s_cp', autoChange(history, 1)!);
    store.updateSession('s_cp', { meta: { capabilities: { goal: { objective: 'ship the parser', status: 'paused', reason: 'by hand', check: 'make' } } } });
    store.close();
    const repo = new ShadowRepo(dir, findProject(project).root, undefined);
    mkdirSync(join(repo.gitDir, 'sessions'), { recursive: true });
    const at = Date.UTC(2026, 11, 7, 6, 0, 0);
    const records = [
      { edge: 'start', turn: first.id, at },
      { edge: 'after', turn: second.id, at, tree: 'abcdef0123456789' },
      { edge: 'before', turn: 'u_gone', at, failed: 'git failed' },
    ];
    writeFileSync(join(repo.gitDir, 'sessions', 's_cp.jsonl'), records.map((r) => JSON.stringify(r)).join('\n'));
    const shown = capture();
    await showSessionCommand('s_cp', { outputFormat: 'text', db });
    const text = shown.stdout();
    expect(text).toContain('# Checkpointed\n\nsession s_cp · anthropic/claude-test');
    expect(text).toContain('Goal (paused: by hand): ship the parser\nCheck: make\n');
    expect(text).toContain('(2 archived messages not shown; add --archived)');
    // mutation: `includeArchived: false` in showCheckpoints names the first turn by its id and the second "turn 1"
    expect(text).toContain(
      [
        '## Checkpoints (3)',
        '- 2026-12-07 06:00:00  start turn 1 (“fix the parser please”)',
        // a turn's words cut at 40 characters
        '- 2026-12-07 06:00:00  after turn 2 (“and the lexer, which reads the tokens fa”)  tree abcdef0123',
        '- 2026-12-07 06:00:00  before turn u_gone  not snapshotted: git failed\n',
      ].join('\n'),
    );
    vi.restoreAllMocks();
    // a session without checkpoints or a goal has neither section
    const plainStore = openStore(db);
    plainStore.createSession({ id: 's_plain', cwd: project, provider: 'anthropic', model: 'claude-test' });
    plainStore.close();
    const plain = capture();
    await showSessionCommand('s_plain', { outputFormat: 'text', db });
    expect(plain.stdout()).not.toContain('Checkpoints');
    expect(plain.stdout()).not.toContain('Goal (');
    expect(plain.stdout()).toContain('# (untitled)');
  });

  it('lists nothing under another directory; exports as markdown and as JSON lines; refuses to remove without --yes off a terminal, removes with it', async () => {
    const { dir } = tempDir();
    const db = join(dir, 'agent.db');
    const store = openStore(db);
    store.createSession({ id: 's_x', cwd: '/repo', provider: 'anthropic', model: 'claude-test', title: 'Export me' });
    store.appendMessage('s_x', user('what is a zebra'), 5);
    store.close();
    const none = capture();
    expect(await listSessionsCommand({ outputFormat: 'text', db, limit: 5, cwd: '/elsewhere' })).toBe(0);
    expect(none.stdout()).toBe('No sessions yet. Start one with `agent`.\n');
    vi.restoreAllMocks();
    const listed = capture();
    await listSessionsCommand({ outputFormat: 'text', db, limit: 5, cwd: '/repo' });
    expect(listed.stdout().split('\n')[1]).toMatch(/^s_x\t\d+s ago\t1\t0\t\/repo\tExport me$/);
    vi.restoreAllMocks();
    const md = capture();
    await exportSessionCommand('s_x', { outputFormat: 'text', db, format: 'md' });
    expect(md.stdout()).toMatch(/^# Export me\n\nsession s_x · anthropic\/claude-test · \/repo\n/);
    expect(md.stdout()).toContain('what is a zebra');
    vi.restoreAllMocks();
    const jsonl = capture();
    await exportSessionCommand('s_x', { outputFormat: 'text', db, format: 'jsonl' });
    const rows = jsonl
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    expect(rows.map((r) => r.type)).toEqual(['session', 'message']);
    vi.restoreAllMocks();
    await expect(removeSessionCommand('s_x', { outputFormat: 'text', db })).rejects.toThrow('refusing to delete without confirmation: add --yes');
    const removed = capture();
    expect(await removeSessionCommand('s_x', { outputFormat: 'text', db, yes: true })).toBe(0);
    expect(removed.stdout()).toBe('Deleted session s_x.\n');
    const after = openStore(db);
    expect(after.getSession('s_x')).toBeUndefined();
    after.close();
  });
});
