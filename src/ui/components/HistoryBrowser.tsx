import { Box, Text } from 'ink';
import { formatAge } from '../format.js';
import type { HistoryBrowserState } from '../history-browser.js';
import { oneLine } from '../sanitize.js';
import { boxBorder, useTheme } from '../theme.js';
import { useTerminalSize } from './terminal-size.js';

export interface HistoryBrowserProps {
  state: HistoryBrowserState;
  now?: number;
}

/** The matched words of a snippet (wrapped in « » by the archive search) in bold. */
function Snippet({ text }: { text: string }) {
  const theme = useTheme();
  const parts = oneLine(text).split(/«|»/);
  return (
    <Text color={theme.muted} wrap="truncate-end">
      {'    '}
      {parts.map((p, i) =>
        i % 2 === 1 ? (
          <Text key={i} bold color={theme.accent}>
            {p}
          </Text>
        ) : (
          p
        ),
      )}
    </Text>
  );
}

/** /history results, a page at a time: what each archived item was, its age, and where the words matched. */
export function HistoryBrowser({ state, now = Date.now() }: HistoryBrowserProps) {
  const theme = useTheme();
  const { rows: screenRows } = useTerminalSize();
  const { result, selected } = state;
  // two lines per hit; a short terminal shows a window around the selection (the border, title,
  // footer, "more" markers, status and hint lines take about ten rows)
  const maxHits = Math.max(2, Math.min(result.pageSize, Math.floor((screenRows - 10) / 2)));
  const start = Math.max(0, Math.min(selected - Math.floor(maxHits / 2), result.hits.length - maxHits));
  const shown = result.hits.slice(start, start + maxHits);
  const first = (result.page - 1) * result.pageSize;
  const paging = [result.page > 1 ? '← previous page' : '', result.hasMore ? '→ next page' : ''].filter(Boolean).join(' · ');
  return (
    <Box flexDirection="column" borderStyle={boxBorder(theme)} borderColor={theme.accent} paddingX={1}>
      <Text bold wrap="truncate-end">
        Archive: “{oneLine(result.query)}”{' '}
        <Text color={theme.muted} bold={false}>
          results {first + 1}–{first + result.hits.length}
          {result.hasMore ? ' of more' : ''} · page {result.page}
        </Text>
      </Text>
      {start > 0 ? <Text color={theme.muted}> ↑ {start} more on this page</Text> : null}
      {shown.map((h, i) => {
        const isSelected = start + i === selected;
        return (
          <Box key={h.id} flexDirection="column">
            <Text wrap="truncate-end" color={isSelected ? theme.accent : undefined} bold={isSelected} inverse={isSelected && !theme.color}>
              {isSelected ? '❯ ' : '  '}
              {first + start + i + 1}. {oneLine(h.label)}
              <Text color={theme.muted} bold={false}>
                {' '}
                · {formatAge(h.createdAt, now)} · {h.id}
              </Text>
            </Text>
            <Snippet text={h.snippet} />
          </Box>
        );
      })}
      {start + shown.length < result.hits.length ? <Text color={theme.muted}> ↓ {result.hits.length - start - shown.length} more on this page</Text> : null}
      <Text color={theme.muted} wrap="truncate-end">
        ↑↓ choose · enter open{paging ? ` · ${paging}` : ''} · esc close
      </Text>
    </Box>
  );
}
