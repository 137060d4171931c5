import { Box, Text } from 'ink';
import { formatAge, formatTokens, shortId, shortenPath } from '../format.js';
import type { PickerState } from '../picker.js';
import { visibleSessions } from '../picker.js';
import { oneLine } from '../sanitize.js';
import { boxBorder, useTheme } from '../theme.js';
import { useTerminalSize } from './terminal-size.js';

export interface SessionPickerProps {
  state: PickerState;
  currentId?: string;
  now?: number;
  home?: string;
}

/** Newest first: title, directory, age, message count, context size. */
export function SessionPicker({ state, currentId, now = Date.now(), home }: SessionPickerProps) {
  const theme = useTheme();
  const { columns } = useTerminalSize();
  const visible = visibleSessions(state);
  // Narrow terminals put each session's details on a second line.
  const narrow = columns < 90;
  const maxRows = narrow ? 6 : 10;
  const start = Math.max(0, Math.min(state.selected - Math.floor(maxRows / 2), visible.length - maxRows));
  const rows = visible.slice(start, start + maxRows);
  const cwdWidth = Math.max(10, Math.floor(columns / 4));
  return (
    <Box flexDirection="column" borderStyle={boxBorder(theme)} borderColor={theme.accent} paddingX={1}>
      <Text bold>
        Resume a session{' '}
        <Text color={theme.muted} bold={false}>
          {state.filter ? `filter: ${state.filter}` : '(type to filter)'}
        </Text>
      </Text>
      {visible.length === 0 ? <Text color={theme.muted}>{state.sessions.length === 0 ? 'No saved sessions yet.' : 'No session matches.'}</Text> : null}
      {start > 0 ? <Text color={theme.muted}> ↑ {start} newer</Text> : null}
      {rows.map((s, i) => {
        const selected = start + i === state.selected;
        const title = s.title ? oneLine(s.title) : `(untitled ${shortId(s.id)})`;
        const tokens = s.contextTokens === null ? '—' : `${formatTokens(s.contextTokens)} tok`;
        const meta = `${shortenPath(s.cwd, home, cwdWidth)} · ${formatAge(s.updatedAt, now)} · ${s.messageCount} msgs · ${tokens}`;
        return (
          <Box key={s.id} flexDirection={narrow ? 'column' : 'row'}>
            <Box flexShrink={1}>
              <Text wrap="truncate-end" color={selected ? theme.accent : undefined} bold={selected} inverse={selected && !theme.color}>
                {selected ? '❯ ' : '  '}
                {title}
                {s.id === currentId ? ' (current)' : ''}
              </Text>
            </Box>
            <Box flexShrink={0} paddingLeft={narrow ? 2 : 0}>
              <Text color={theme.muted} wrap="truncate-end">
                {' '}
                {meta}
              </Text>
            </Box>
          </Box>
        );
      })}
      {start + rows.length < visible.length ? <Text color={theme.muted}> ↓ {visible.length - start - rows.length} older</Text> : null}
      <Text color={theme.muted}>↑↓ choose · enter resume · esc close</Text>
    </Box>
  );
}
