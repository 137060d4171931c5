import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { FakeController, KEYS, renderApp, waitFor } from './helpers.js';

afterEach(() => cleanup());

// The TUI asks before a code rewind overwrites files the person changed since the agent's last
// turn (issue 46): the command's refusal comes back as the picker's question, y runs it again
// with --force, n or Esc leaves the files alone; turns with a checkpoint offer their code even
// when Edit and Write changed nothing (Bash did).

const targets = [
  { index: 1, turnId: 'u1', text: 'run the generator', createdAt: Date.now() - 60_000, inConversation: true, files: [], checkpoint: { ok: true as const } },
  {
    index: 2,
    turnId: 'u2',
    text: 'format everything',
    createdAt: Date.now() - 1_000,
    inConversation: true,
    files: [],
    checkpoint: { ok: false as const, missing: 'it could not be snapshotted: too many files' },
  },
];

describe('the /rewind picker with checkpoints', () => {
  it('names the files changed outside and rewinds anyway only on y', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    const overwrite = { files: ['notes.md', 'src/b.ts'], command: '/rewind 1 code' };
    c.emit({ type: 'command_output', command: '/rewind 1 code', output: { kind: 'rewind', targets, overwrite } });
    await app.waitForText("These 2 files were changed since the agent's last turn");
    expect(app.frame()).toContain('notes.md');
    expect(app.frame()).toContain('src/b.ts');
    // mutations: 'it' for two files; the box's padding dropped
    expect(app.frame()).toContain('/rewind 1 code would overwrite them. Rewind anyway?');
    expect(app.frame()).toContain('│ These 2 files were changed');
    await app.press(KEYS.enter);
    expect(c.submitted).toEqual([]);
    await app.press('y');
    await waitFor(() => c.submitted.length === 1);
    expect(c.submitted).toEqual(['/rewind 1 code --force']);

    c.emit({
      type: 'command_output',
      command: '/rewind undo',
      output: { kind: 'rewind', targets, overwrite: { files: ['notes.md'], command: '/rewind undo' } },
    });
    await app.waitForText('This file was changed');
    expect(app.frame()).toContain('/rewind undo would overwrite it. Rewind anyway?');
    await app.press('n');
    await waitFor(() => !app.frame().includes('This file was changed'));
    expect(c.submitted).toEqual(['/rewind 1 code --force']);
  });

  it('names the first eight files changed outside and counts the rest', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    const files = Array.from({ length: 10 }, (_, i) => `changed-${String(i + 1).padStart(2, '0')}.md`);
    c.emit({ type: 'command_output', command: '/rewind 1 code', output: { kind: 'rewind', targets, overwrite: { files, command: '/rewind 1 code' } } });
    await app.waitForText("These 10 files were changed since the agent's last turn");
    expect(app.frame()).toContain('changed-08.md');
    expect(app.frame()).not.toContain('changed-09.md');
    expect(app.frame()).toContain('… and 2 more');
    // eight: all named, none counted (mutation: `files.length >= 8`)
    c.emit({
      type: 'command_output',
      command: '/rewind 1 code',
      output: { kind: 'rewind', targets, overwrite: { files: files.slice(0, 8), command: '/rewind 1 code' } },
    });
    await app.waitForText('These 8 files were changed');
    expect(app.frame()).toContain('changed-08.md');
    expect(app.frame()).not.toContain('more');
  });

  it('rewinds anyway on Y as on y', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({
      type: 'command_output',
      command: '/rewind 1 code',
      output: { kind: 'rewind', targets, overwrite: { files: ['a.md'], command: '/rewind 1 code' } },
    });
    await app.waitForText('This file was changed');
    await app.press('Y');
    await waitFor(() => c.submitted.length === 1);
    expect(c.submitted).toEqual(['/rewind 1 code --force']);
  });

  it("says Bash's changes are included when any listed turn has a checkpoint, that they are not when none has", async () => {
    const c = new FakeController();
    const app = renderApp(c);
    const { checkpoint: _none, ...older } = targets[0]!;
    // mutation: `some` made `every` (a session whose older turns predate checkpoints)
    c.emit({ type: 'command_output', command: '/rewind', output: { kind: 'rewind', targets: [older, targets[1]!] } });
    await app.waitForText("Bash's changes included");
    await app.press(KEYS.esc);
    await waitFor(() => !app.frame().includes('Rewind to before which turn?'));
    c.emit({ type: 'command_output', command: '/rewind', output: { kind: 'rewind', targets: [older] } });
    await app.waitForText('Only changes made by Edit and Write are restored');
    expect(app.frame()).not.toContain("Bash's changes included");
  });

  it('offers the code of a turn with a checkpoint, says why one without has none', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'command_output', command: '/rewind', output: { kind: 'rewind', targets } });
    await app.waitForText("Bash's changes included");
    await app.press(KEYS.enter);
    await app.waitForText('not available: no checkpoint');
    await app.press(KEYS.esc);
    await app.waitForText('enter: choose');
    await app.press(KEYS.up, KEYS.enter);
    await app.waitForText('3. Code only');
    await app.press('3', KEYS.enter);
    await waitFor(() => c.submitted.length === 1);
    expect(c.submitted).toEqual(['/rewind 1 code']);
  });
});

// Mutations checked: `y` submitting the command without --force fails the first test; Enter
// accepted as yes fails it too; a code choice disabled whenever no Edit/Write file changed (the
// old rule) fails the second; eight files named made nine (RewindPicker.tsx) fails the eight-files one.
