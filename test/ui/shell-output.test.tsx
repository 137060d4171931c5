import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { SHELL_SHOWN_LINES } from '../../src/ui/item-text.js';
import { FakeController, KEYS, renderApp } from './helpers.js';

// `!command` output (issue 26, defect 11): the person ran it to see it, so its output shows, up to
// a screenful, then how to see the rest (Ctrl+O).

afterEach(() => cleanup());

function run(c: FakeController, id: string, command: string, output: string): void {
  c.emit(
    { type: 'busy', busy: true },
    { type: 'tool_start', id, name: 'Shell', input: {}, summary: command },
    { type: 'tool_end', id, name: 'Shell', output: { content: output, isError: false }, durationMs: 30, status: 'done' },
    { type: 'busy', busy: false },
  );
}

describe('a !command row', () => {
  it('shows all of a short output, not its first line only', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    run(c, 'sh1', 'ls -l', 'total 32\n-rw-r--r-- 1 me me 10 a.txt\n-rw-r--r-- 1 me me 20 b.txt\ndrwxr-xr-x 2 me me 40 src');
    await app.waitForText('drwxr-xr-x 2 me me 40 src');
    const f = app.frame();
    expect(f).toMatch(/⎿ total 32\n\s+-rw-r--r-- 1 me me 10 a\.txt\n\s+-rw-r--r-- 1 me me 20 b\.txt/);
    expect(f).not.toContain('(+3 lines)');
    expect(f).not.toContain('ctrl+o');
  });

  it('shows a screenful of a long output, then the Ctrl+O hint; Ctrl+O prints the rest', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    const out = Array.from({ length: 40 }, (_, i) => `out ${i + 1}`).join('\n');
    run(c, 'sh2', 'seq 40', out);
    const hidden = 40 - (SHELL_SHOWN_LINES - 1);
    await app.waitForText(`… +${hidden} lines (ctrl+o to expand)`);
    const f = app.frame();
    expect(f).toContain(`out ${SHELL_SHOWN_LINES - 1}\n`);
    expect(f).not.toContain(`out ${SHELL_SHOWN_LINES}\n`);
    await app.press(KEYS.ctrl('o'));
    await app.waitForText('out 40');
  });
});
