import './force-truecolor.js';
import { describe, expect, it } from 'vitest';
import { styledCharsFromTokens, tokenize } from '@alcalzone/ansi-tokenize';
import stripAnsi from 'strip-ansi';
import { Box, Static } from 'ink';
import { App } from '../../src/ui/app.js';
import { RESIZE_SETTLE_MS } from '../../src/ui/use-app-store.js';
import { ItemView } from '../../src/ui/components/ItemView.js';
import { TerminalSizeContext } from '../../src/ui/components/terminal-size.js';
import { printedText } from '../../src/ui/item-text.js';
import { colorTheme, plainTheme, ThemeContext, type Theme } from '../../src/ui/theme.js';
import { UiStore } from '../../src/ui/ui-store.js';
import type { Message } from '../../src/llm/messages.js';
import type { TranscriptItem } from '../../src/ui/transcript.js';
import { ITEM_CORPUS } from './item-corpus.js';
import { FakeController, msg, renderSized, text, tick, waitFor } from './helpers.js';
import { expectInOrder } from '../support/inOrder.js';

// A resumed session's newest screenful goes to the terminal as text before Ink's first frame
// (TranscriptPrinter.printAhead), instead of through Ink's layout of <Static>. What the terminal shows must
// be what <Static> would have printed, and nothing may be printed twice.

/** An item whose drawing throws (a renderer bug, odd stored data). */
const BROKEN = { kind: 'user', id: 'bad', text: undefined } as unknown as TranscriptItem;

const CLEAR_VISIBLE = '\u001b[2J\u001b[H';
const CLEAR_SCREEN = '\u001b[2J\u001b[3J\u001b[H';

const EDIT = 'Edited src/a.ts (+1 −1): replaced 1 occurrence\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,2 +1,2 @@\n-old line\n+new line\n keep';

/** A session of every kind a resumed history shows: prompts, replies, tool rows (an edit, an error), a checkpoint, an interrupted reply. */
function history(turns: number): Message[] {
  const out: Message[] = [msg('user', [text('## Goal\nthe summary of earlier work')], { kind: 'checkpoint' })];
  for (let i = 0; i < turns; i++) {
    out.push(msg('user', [text(`question number ${i} ${'with words that wrap '.repeat(i % 4)}`)]));
    out.push(msg('assistant', [text(`Looking at **file ${i}**.`), { type: 'tool_use', id: `e${i}`, name: 'Edit', input: { file_path: `src/f${i}.ts` } }]));
    out.push(msg('user', [{ type: 'tool_result', toolUseId: `e${i}`, content: i % 3 === 0 ? 'Error: old_string not found' : EDIT, isError: i % 3 === 0 }]));
    out.push(msg('assistant', [text(`answer number ${i}`)], i % 5 === 4 ? { interrupted: true } : {}));
  }
  return out;
}

/**
 * What a terminal shows for a text: each line's cells, a character and the set of styles on it
 * (the order escape codes open and close in makes no difference on screen), trailing blanks dropped.
 */
const normalized = (s: string): string =>
  s
    .split('\n')
    .map((line) => {
      const cells = styledCharsFromTokens(tokenize(line)).map(
        (c) =>
          `${c.value}${
            c.styles.length
              ? `[${c.styles
                  .map((st) => st.code)
                  .sort()
                  .join(';')}]`
              : ''
          }`,
      );
      while (cells.length > 0 && cells[cells.length - 1] === ' ') cells.pop();
      return cells.join('');
    })
    .join('\n');

function firstFrames(messages: Message[], theme: Theme, ahead: boolean): { printed: string[]; frames: string[]; unmount: () => void } {
  const printed: string[] = [];
  const r = renderSized(
    <App controller={new FakeController(undefined, messages)} theme={theme} {...(ahead ? { printAhead: (t: string) => void printed.push(t) } : {})} />,
    80,
    24,
  );
  return { printed, frames: r.stdout.frames, unmount: r.unmount };
}

describe('the first frame prints the transcript ahead of Ink', () => {
  for (const [name, theme] of [
    ['colour', colorTheme],
    ['plain', plainTheme],
  ] as const) {
    it(`shows what <Static> would have printed, cell for cell (${name})`, () => {
      const withAhead = firstFrames(history(40), theme, true);
      const without = firstFrames(history(40), theme, false);
      expect(withAhead.printed).toHaveLength(1);
      const printed = withAhead.printed[0]!;
      // the newest screenful only: the older items follow after the first frame
      expect(printed).toContain('answer number 39');
      expect(stripAnsi(printed)).toContain('answer number 38');
      expect(stripAnsi(printed)).not.toMatch(/question number 0$/m);
      // the first frame Ink draws holds the live region only; the printed text plus it is the whole screen
      const inkFirst = withAhead.frames[0]!;
      expect(stripAnsi(inkFirst)).not.toContain('answer number 39');
      expect(normalized(printed + inkFirst)).toBe(normalized(without.frames[0]!));
      withAhead.unmount();
      without.unmount();
    });
  }

  it('every kind with a text form prints as <Static> prints it, at any width', () => {
    const items = Object.values(ITEM_CORPUS);
    for (const columns of [24, 60, 120]) {
      const r = renderSized(
        <ThemeContext.Provider value={colorTheme}>
          <TerminalSizeContext.Provider value={{ columns, rows: 40 }}>
            <Box flexDirection="column" width={columns}>
              <Static items={items} style={{ width: columns }}>
                {(item) => <ItemView key={item.id} item={item} />}
              </Static>
            </Box>
          </TerminalSizeContext.Provider>
        </ThemeContext.Provider>,
        columns,
      );
      const ink = r.stdout.frames[0]!;
      r.unmount();
      const { text, count } = printedText(items, columns, colorTheme);
      expect(count).toBe(items.length);
      expect(normalized(text)).toBe(normalized(ink));
    }
  });

  it('an item that fails to draw and those after it are left to <Static>, under the text printed ahead', () => {
    const printed: string[] = [];
    const controller = new FakeController(undefined, history(3));
    const store = new UiStore(controller);
    const before = store.transcript.get().items.length;
    store.append(BROKEN, ITEM_CORPUS['notice info']!);
    expect(store.printer.printAhead((t) => void printed.push(t), 80, colorTheme)).toBe(true);
    expect(printed).toHaveLength(1);
    expect(printed[0]).toContain('answer number 2');
    expect(printed[0]).not.toContain('Model set to');
    expect(store.transcript.get().printed).toBe(before);
  });

  it('an item that fails to draw is left to <Static> (which shows its error line), with those after it', () => {
    const items = [ITEM_CORPUS['user short']!, BROKEN, ITEM_CORPUS['notice info']!];
    const { text, count } = printedText(items, 80, colorTheme);
    expect(count).toBe(1);
    expect(stripAnsi(text)).toBe('\n❯ fix the failing test\n');
  });

  it('prints the older items as text after the first frame, in order and once; items that come later go through <Static>', async () => {
    const printed: string[] = [];
    const controller = new FakeController(undefined, history(40));
    const r = renderSized(<App controller={controller} theme={colorTheme} printAhead={(t) => void printed.push(t)} />, 80, 24);
    await tick(5);
    expect(printed).toHaveLength(1);
    // the reprint: the screen cleared (not the scrollback), then the whole transcript as text
    const reprints = r.stdout.frames.filter((f) => f.startsWith(CLEAR_VISIBLE));
    expect(reprints).toHaveLength(1);
    const reprint = stripAnsi(reprints[0]!);
    const [, , newest] = expectInOrder(reprint, [/question number 0$/m, 'answer number 20', 'answer number 39']);
    expect(reprint.indexOf('answer number 39', newest! + 1)).toBe(-1);
    controller.emit({ type: 'notice', level: 'info', text: 'a later notice' });
    await tick(5);
    // debug mode writes everything <Static> printed in each frame: the notice alone
    const last = stripAnsi(r.stdout.frames[r.stdout.frames.length - 1]!);
    expect(last).toContain('a later notice');
    expect(last).not.toContain('answer number 39');
    r.unmount();
  });

  it('a resize prints the transcript again as text at the new width', async () => {
    const r = renderSized(<App controller={new FakeController(undefined, history(40))} theme={plainTheme} printAhead={() => undefined} />, 80, 24);
    // event-driven (a loaded machine renders late): the first frame with the transcript, then the redraw
    await waitFor(
      () => stripAnsi(r.stdout.frames.join('')).includes('answer number 39'),
      () => r.stdout.frames.join('').slice(-400),
    );
    await tick(RESIZE_SETTLE_MS + 50); // nothing more pending from the first render
    const before = r.stdout.frames.length;
    r.stdout.resize(50);
    const redrawsNow = () => r.stdout.frames.slice(before).filter((f) => f.startsWith(CLEAR_SCREEN));
    await waitFor(
      () => redrawsNow().length > 0,
      () => `no redraw after the resize`,
    );
    await tick(RESIZE_SETTLE_MS + 50); // a second redraw would come within this
    const redraws = redrawsNow();
    expect(redraws).toHaveLength(1);
    const text = stripAnsi(redraws[0]!);
    expect(text).toMatch(/question number 0$/m);
    expect(text).toContain('answer number 39');
    // "with words that wrap" three times does not fit in 50 columns: wrapped at 48, beside the marker
    const lines = text.split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(50);
    expect(lines.map((l) => l.trimEnd())).toContain('❯ question number 3 with words that wrap with');
    r.unmount();
  });
});
