import { Box, Text } from 'ink';
import { oneLine } from '../sanitize.js';
import type { TasksPanelState } from '../tasks-panel.js';
import { boxBorder, useTheme } from '../theme.js';
import { useTerminalSize } from './terminal-size.js';

/** /tasks: the background commands (state, time, output size), one selected, with the keys that view and stop them. */
export function TasksPanel({ state }: { state: TasksPanelState }) {
  const theme = useTheme();
  const { rows } = useTerminalSize();
  const max = Math.max(3, rows - 10);
  const start = Math.max(0, Math.min(state.selected - Math.floor(max / 2), state.rows.length - max));
  const running = state.rows.filter((r) => r.running).length;
  return (
    <Box flexDirection="column" borderStyle={boxBorder(theme)} borderColor={theme.accent} paddingX={1}>
      <Text bold color={theme.accent}>
        Background commands ({running} running)
      </Text>
      {state.rows.length === 0 ? <Text color={theme.muted}>None in this run.</Text> : null}
      {state.rows.slice(start, start + max).map((r, i) => {
        const selected = start + i === state.selected;
        return (
          <Text key={`${r.sessionId}/${r.id}`} color={selected ? theme.accent : r.running ? undefined : theme.muted} bold={selected} wrap="truncate-end">
            {selected ? '❯ ' : '  '}
            {r.id.padEnd(4)} {r.state.padEnd(12)} {r.ran.padStart(7)} {r.output.padStart(9)} {oneLine(r.command)}
            {r.own ? '' : ` (sub-agent ${r.sessionId})`}
          </Text>
        );
      })}
      <Text color={theme.muted}>enter or ctrl+o: view output · s: stop · a: stop all · ↑↓: select · esc: close</Text>
    </Box>
  );
}
