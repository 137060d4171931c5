import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { listSessionsCommand, showSessionCommand } from '../../src/sessionsCommand.js';
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
