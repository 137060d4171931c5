import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import stripAnsi from 'strip-ansi';
import { ItemView } from '../../src/ui/components/ItemView.js';
import { fullOutputOf, spillPreview } from '../../src/tools/spill.js';
import type { ToolItem } from '../../src/ui/transcript.js';
import { FakeController, KEYS, msg, renderApp, text } from './helpers.js';

afterEach(() => cleanup());

const item = (over: Partial<ToolItem> = {}): ToolItem => ({
  kind: 'tool',
  id: 'x',
  toolUseId: 'tu',
  name: 'Bash',
  summary: 'npm test',
  status: 'done',
  durationMs: 2300,
  output: 'PASS 12 tests\nline 2\nline 3',
  ...over,
});

function show(i: ToolItem): string {
  const r = render(<ItemView item={i} />);
  // the item's top margin dropped
  const out = stripAnsi(r.lastFrame() ?? '').replace(/^\n/, '');
  r.unmount();
  return out;
}

describe('tool rows', () => {
  it('done: check mark, name, key argument, duration, first line and how many more', () => {
    const out = show(item());
    expect(out).toContain('✓ Bash npm test · 2.3s');
    expect(out).toContain('⎿ PASS 12 tests (+2 lines)');
  });

  it('spilled: the receipt names the handle, lines and bytes, and says the output was spilled', () => {
    const output = spillPreview(fullOutputOf(Array.from({ length: 6_001 }, (_, i) => `row ${i}`).join('\n')), 'o12');
    const out = show(item({ output, fullOutput: 'all of it' }));
    expect(out).toContain('o12 · 6,001 lines, 52 KB · spilled, model saw head+tail');
    expect(out).toContain('ctrl+o shows all');
    expect(out).not.toContain('model got a cut copy');
    // issue 30 item 14: the row shows the output's first line, not the header written for the model
    expect(out).toContain('⎿ row 0');
    expect(out).not.toContain('[output o12');
  });

  it('error: cross, the word error, the error line', () => {
    const out = show(item({ status: 'error', output: 'Error: exit code 1' }));
    expect(out).toContain('✗ Bash npm test · error · 2.3s');
    expect(out).toContain('⎿ Error: exit code 1');
    expect(out).not.toContain('more');
  });

  it('denied and interrupted say so', () => {
    expect(show(item({ status: 'denied', output: 'The user denied this command: use pnpm' }))).toContain('⊘ Bash npm test · denied · 2.3s');
    const interrupted = show(item({ status: 'interrupted', output: '' }));
    expect(interrupted).toContain('■ Bash npm test · interrupted');
    expect(interrupted).toContain('stopped before it finished');
  });

  it('an output cleared by compaction says where it went', () => {
    const out = show(item({ clearedTokens: 12_345, output: '[cleared: FileRead output archived as a_1]' }));
    expect(out).toContain('output cleared by compaction (12.3k tokens archived)');
  });

  it('a long key argument is cut to the row, the duration stays', () => {
    const out = show(item({ summary: `echo ${'x'.repeat(300)}` }));
    const header = out.split('\n')[0]!;
    expect(header.length).toBeLessThanOrEqual(100);
    expect(header).toContain('…');
    expect(header).toContain('· 2.3s');
  });

  it('escape codes in the output never reach the screen', () => {
    const evil = '\u001b[2J\u001b[H\u001b]0;pwned\u0007\u001b]52;c;ZXZpbA==\u0007\u001b[31mred\u001b[0m \u009b31m8bit\u0007bell';
    const r = render(<ItemView item={item({ summary: 'cat \u001b[1Afile', output: evil })} />);
    const raw = r.lastFrame() ?? '';
    r.unmount();
    expect(raw).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(raw).toContain('red 8bitbell');
    expect(raw).toContain('Bash cat file');
  });
});

describe('expanding the last tool output (Ctrl-O)', () => {
  it('prints the whole output of the most recent tool, once', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    const lines = Array.from({ length: 30 }, (_, i) => `row ${i + 1}`).join('\n');
    c.emit(
      { type: 'tool_start', id: 't1', name: 'Bash', input: { command: 'seq' }, summary: 'seq 30' },
      { type: 'tool_end', id: 't1', name: 'Bash', output: { content: lines, isError: false }, durationMs: 5, status: 'done' },
    );
    await app.waitForText('(+29 lines)');
    expect(app.frame()).not.toContain('row 30');
    await app.press(KEYS.ctrl('o'));
    await app.waitForText('row 30');
    expect(app.frame()).toContain('Bash seq 30 — full output');
    const count = (): number => app.frame().split('row 17').length - 1;
    expect(count()).toBe(1);
    await app.press(KEYS.ctrl('o'));
    await app.waitForText('already shown in full');
    expect(count()).toBe(1);
  });

  it('says so when there is nothing to expand', async () => {
    const app = renderApp(new FakeController());
    await app.press(KEYS.ctrl('o'));
    await app.waitForText('No tool output to expand yet');
  });

  it('rows rebuilt from a resumed history take their status from the results', async () => {
    const c = new FakeController();
    c.transcript = [
      msg('user', [text('go')]),
      msg('assistant', [
        { type: 'tool_use', id: 'a', name: 'FileRead', input: { file_path: 'src/a.ts' } },
        { type: 'tool_use', id: 'b', name: 'Bash', input: { command: 'false' } },
      ]),
      msg('user', [
        { type: 'tool_result', toolUseId: 'a', content: 'export const a = 1;', isError: false },
        { type: 'tool_result', toolUseId: 'b', content: 'exit 1', isError: true },
      ]),
      msg('assistant', [{ type: 'tool_use', id: 'c', name: 'Bash', input: { command: 'sleep 100' } }]),
    ];
    const app = renderApp(c);
    await app.waitForText('✓ FileRead src/a.ts');
    expect(app.frame()).toContain('✗ Bash false · error');
    expect(app.frame()).toContain('■ Bash sleep 100 · interrupted');
  });
});

describe('a transcript item that cannot be rendered', () => {
  it('shows a line in its place and the app goes on', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'tool_end', id: 'bad', name: 'Bash', output: { content: 42 as unknown as string, isError: false }, durationMs: 1, status: 'done' });
    await app.waitForText('This item could not be shown');
    c.emit({ type: 'notice', level: 'info', text: 'still alive' });
    await app.waitForText('still alive');
  });
});

describe('agent notes in a resumed transcript', () => {
  it('hides the date note (the model needs it, the person does not) and shows other notes', async () => {
    const { messagesToItems } = await import('../../src/ui/transcript.js');
    const { dateNoteFor } = await import('../../src/session/dateNote.js');
    const note = (t: string) => ({ id: t, role: 'user' as const, kind: 'meta' as const, createdAt: 1, blocks: [{ type: 'text' as const, text: t }] });
    // the note as the session appends it; mutation: the transcript not switching on the date note's origin fails this
    const items = messagesToItems([dateNoteFor([], new Date('2026-11-26T10:00:00Z'))!, note('Files restored after compaction: a.ts')]);
    expect(items).toEqual([expect.objectContaining({ kind: 'meta', text: 'Files restored after compaction: a.ts' })]);
  });
});

describe('an interrupted call in a resumed transcript', () => {
  // issue 30: an interrupted Bash came back as "error" after a resume (it was "interrupted" live);
  // a real failure stays an error. Fails when the stored result's outcome (set by agent/runTools.ts,
  // derived for a row stored before it: test/history/legacyOrigins.test.ts) is not read.
  it('is shown as interrupted, as it was live; a failure stays an error', async () => {
    const { messagesToItems } = await import('../../src/ui/transcript.js');
    const { INTERRUPTED_RESULT } = await import('../../src/agent/runTools.js');
    const call = (id: string) => ({ type: 'tool_use' as const, id, name: 'Bash', input: { command: 'sleep 30' } });
    const result = (id: string, content: string, outcome?: 'interrupted') => ({
      type: 'tool_result' as const,
      toolUseId: id,
      content,
      isError: true,
      ...(outcome ? { outcome } : {}),
    });
    const items = messagesToItems([
      { id: 'u', role: 'user', kind: 'normal', createdAt: 1, blocks: [{ type: 'text', text: 'run it' }] },
      { id: 'a', role: 'assistant', kind: 'normal', createdAt: 2, blocks: [call('t1'), call('t2'), call('t3')] },
      {
        id: 'r',
        role: 'user',
        kind: 'normal',
        createdAt: 3,
        blocks: [
          result('t1', `Command interrupted; partial output:\nworking\n[${INTERRUPTED_RESULT}]`, 'interrupted'),
          result('t2', INTERRUPTED_RESULT, 'interrupted'),
          result('t3', 'Command failed with exit code 1'),
        ],
      },
    ]);
    const statuses = items.flatMap((i) => (i.kind === 'tool' ? [i.status] : []));
    expect(statuses).toEqual(['interrupted', 'interrupted', 'error']);
  });
});
