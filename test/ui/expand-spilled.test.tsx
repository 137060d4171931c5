import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { fullOutputOf, spillPreview } from '../../src/tools/spill.js';
import type { SpilledOutputView } from '../../src/ui/controller.js';
import { FakeController, KEYS, msg, renderApp, session, text } from './helpers.js';

// Ctrl+O on a tool row whose output was spilled, when the row comes from stored messages (a
// resumed session, a rewound or reset history): the model's copy is the head-and-tail preview,
// and the whole output is read from the session's archive by the handle the preview names.

afterEach(() => cleanup());

const WHOLE = Array.from({ length: 300 }, (_, i) => `row ${i + 1} of the run`).join('\n');

/** A controller whose archive holds `archive` (handle → output), and a transcript whose last tool row spilled as o3. */
class ArchiveController extends FakeController {
  readonly asked: string[] = [];
  constructor(private readonly spills: Record<string, SpilledOutputView>) {
    super(session(), [
      msg('user', [text('run the numbers')]),
      msg('assistant', [{ type: 'tool_use', id: 'tu1', name: 'Bash', input: { command: 'seq 300' } }]),
      msg('user', [{ type: 'tool_result', toolUseId: 'tu1', content: spillPreview(fullOutputOf(WHOLE), 'o3'), isError: false }]),
      msg('assistant', [text('Ran them.')]),
    ]);
  }
  spilledOutput(handle: string): SpilledOutputView | undefined {
    this.asked.push(handle);
    return this.spills[handle];
  }
}

describe('Ctrl+O on a spilled output from the stored history', () => {
  it('after --resume prints the whole archived output, read by the handle the preview names', async () => {
    const c = new ArchiveController({ o3: { text: WHOLE, totalChars: WHOLE.length } });
    const app = renderApp(c);
    await app.waitForText('o3 · 300 lines');
    expect(app.frame()).toContain('ctrl+o shows all');
    expect(app.frame()).not.toContain('row 150 of the run'); // not in the preview's head or tail
    await app.press(KEYS.ctrl('o'));
    await app.waitForText('row 150 of the run');
    await app.waitForText('row 300 of the run');
    expect(c.asked).toEqual(['o3']);
    // once: a second press says it is already shown
    await app.press(KEYS.ctrl('o'));
    await app.waitForText('already shown in full above');
  });

  it('after a history reset (a /rewind) reads the archive again for the new transcript', async () => {
    const c = new ArchiveController({ o3: { text: WHOLE, totalChars: WHOLE.length } });
    const stored = c.transcript;
    c.transcript = [];
    const app = renderApp(c);
    await app.waitForText('Ask for a change');
    c.emit({ type: 'session', session: session(), transcript: stored, compactions: [] });
    await app.waitForText('Ran them.');
    await app.press(KEYS.ctrl('o'));
    await app.waitForText('row 150 of the run');
    expect(c.asked).toEqual(['o3']);
  });

  it('says when the archive kept only the first part (the cap), and when the handle is not in the archive', async () => {
    const capped = new ArchiveController({ o3: { text: WHOLE, totalChars: WHOLE.length + 5_000 } });
    const a = renderApp(capped);
    await a.waitForText('Ran them.');
    await a.press(KEYS.ctrl('o'));
    await a.waitForText('5,000 more were not kept');
    cleanup();

    const missing = new ArchiveController({});
    const b = renderApp(missing);
    await b.waitForText('Ran them.');
    await b.press(KEYS.ctrl('o'));
    await b.waitForText("not in this session's archive");
    await b.waitForText('— full output');
    expect(b.frame()).not.toContain('row 150 of the run');
  });
});
