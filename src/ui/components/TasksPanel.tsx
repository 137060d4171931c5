import { Box, Text } from 'ink';
import { useEffect } from 'react';
import { oneLine } from '../sanitize.js';
import type { TasksPanelState } from '../tasks-panel.js';
import { boxBorder, useTheme } from '../theme.js';
import { useTerminalSize } from './terminal-size.js';

/** How often the open panel reads its rows again while a command runs (their times go on). */
const REFRESH_MS = 1_000;

/**
 * /tasks: the background commands (state, time, output size), one selected, with the keys that
 * view and stop them. While one runs, `refresh` is called every second: its time goes on.
 */
export function TasksPanel({ state, refresh }: { state: TasksPanelState; refresh: () => void }) {
  const theme = useTheme();
  const { rows } = useTerminalSize();
  const max = Math.max(3, rows - 10);
  const start = Math.max(0, Math.min(state.selected - Math.floor(max / 2), state.rows.length - max));
  const running = state.rows.filter((r) => r.running).length;
  const ticking = running > 0;
  useEffect(() => {
    if (!ticking) return;
    const t = setInterval(refresh, REFRESH_MS);
    return () => clearInterval(t);
  }, [ticking, refresh]);
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
