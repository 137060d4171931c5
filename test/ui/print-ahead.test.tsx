import './force-truecolor.js';
import { describe, expect, it } from 'vitest';
import { styledCharsFromTokens, tokenize } from '@alcalzone/ansi-tokenize';
import stripAnsi from 'strip-ansi';
import { Box, Static } from 'ink';
import { App } from '../../src/ui/app.js';
import { ItemView } from '../../src/ui/components/ItemView.js';
import { TerminalSizeContext } from '../../src/ui/components/terminal-size.js';
import { printedText } from '../../src/ui/item-text.js';
import { colorTheme, plainTheme, ThemeContext, type Theme } from '../../src/ui/theme.js';
import { UiStore } from '../../src/ui/ui-store.js';
import type { Message } from '../../src/llm/messages.js';
import { ITEM_CORPUS } from './item-corpus.js';
import { FakeController, msg, renderSized, text, tick } from './helpers.js';

// A resumed session's newest screenful goes to the terminal as text before Ink's first frame
// (UiStore.printAhead), instead of through Ink's layout of <Static>. What the terminal shows must
// be what <Static> would have printed, and nothing may be printed twice.

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
      const cells = styledCharsFromTokens(tokenize(line)).map((c) => `${c.value}${c.styles.length ? `[${c.styles.map((st) => st.code).sort().join(';')}]` : ''}`);
      while (cells.length > 0 && cells[cells.length - 1] === ' ') cells.pop();
      return cells.join('');
    })
    .join('\n');

function firstFrames(messages: Message[], theme: Theme, ahead: boolean): { printed: string[]; frames: string[]; unmount: () => void } {
  const printed: string[] = [];
  const r = renderSized(<App controller={new FakeController(undefined, messages)} theme={theme} {...(ahead ? { printAhead: (t: string) => void printed.push(t) } : {})} />, 80, 24);
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
    const items = Object.values(ITEM_CORPUS).filter((i) => i.kind !== 'tool_output' && i.kind !== 'command');
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
      expect(normalized(printedText(items, columns, colorTheme)!)).toBe(normalized(ink));
    }
  });

  it('an item drawn by a component (a command output) leaves the whole first screenful to <Static>', () => {
    const controller = new FakeController(undefined, history(3));
    const store = new UiStore(controller);
    store.append(ITEM_CORPUS['command']!);
    const printed: string[] = [];
    expect(store.printAhead((t) => void printed.push(t), 80, colorTheme)).toBe(false);
    expect(printed).toEqual([]);
    expect(store.transcript.get().printed).toBeUndefined();
  });

  it('items that come later are printed by <Static>, once; the reprint after the first frame holds them all in order', async () => {
    const printed: string[] = [];
    const controller = new FakeController(undefined, history(40));
    const r = renderSized(<App controller={controller} theme={colorTheme} printAhead={(t) => void printed.push(t)} />, 80, 24);
    await tick(5);
    controller.emit({ type: 'notice', level: 'info', text: 'a later notice' });
    await tick(5);
    expect(printed).toHaveLength(1);
    // debug mode writes the whole static output each frame: the last frame holds the reprint
    const last = stripAnsi(r.stdout.frames[r.stdout.frames.length - 1]!);
    const oldest = last.search(/question number 0$/m);
    const newest = last.indexOf('answer number 39');
    expect(oldest).toBeGreaterThan(-1);
    expect(newest).toBeGreaterThan(oldest);
    expect(last.indexOf('answer number 39', newest + 1)).toBe(-1);
    const notice = last.indexOf('a later notice');
    expect(notice).toBeGreaterThan(newest);
    expect(last.indexOf('a later notice', notice + 1)).toBe(-1);
    r.unmount();
  });
});
