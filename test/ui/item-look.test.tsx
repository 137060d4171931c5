import './force-truecolor.js';
import { describe, expect, it } from 'vitest';
import { Box } from 'ink';
import { ItemView } from '../../src/ui/components/ItemView.js';
import { TerminalSizeContext } from '../../src/ui/components/terminal-size.js';
import { loadMarkdown } from '../../src/ui/markdown-lazy.js';
import { colorTheme, plainTheme, ThemeContext, type Theme } from '../../src/ui/theme.js';
import type { TranscriptItem } from '../../src/ui/transcript.js';
import { ITEM_CORPUS } from './item-corpus.js';
import { renderSized } from './helpers.js';

// How every kind of finished transcript item looks, colours included, at three widths: pinned
// byte for byte (Ink's own output) so that a change to how items are drawn cannot change the
// look unnoticed.

await loadMarkdown();

/** What Ink prints for one item in a terminal this wide (ANSI kept). */
function inkLook(item: TranscriptItem, columns: number, theme: Theme): string {
  const r = renderSized(
    <ThemeContext.Provider value={theme}>
      <TerminalSizeContext.Provider value={{ columns, rows: 40 }}>
        <Box flexDirection="column" width={columns}>
          <ItemView item={item} />
        </Box>
      </TerminalSizeContext.Provider>
    </ThemeContext.Provider>,
    columns,
  );
  const out = r.stdout.lastFrame() ?? '';
  r.unmount();
  return out;
}

describe('how finished transcript items look', () => {
  for (const [name, item] of Object.entries(ITEM_CORPUS)) {
    it(name, () => {
      const looks: Record<string, string> = {};
      for (const columns of [24, 60, 120]) looks[`colour ${columns}`] = inkLook(item, columns, colorTheme);
      looks['plain 60'] = inkLook(item, 60, plainTheme);
      expect(looks).toMatchSnapshot();
    });
  }
});
