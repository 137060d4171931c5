import { Box, Text } from 'ink';
import type { ApprovalView } from '../approval.js';
import { approvalOptions } from '../approval.js';
import { sanitize } from '../sanitize.js';
import { boxBorder, useTheme } from '../theme.js';

/** "Bash wants to run …": the command in full, then allow once / allow for the session / deny (with a note). */
export function ApprovalPrompt({ view, pending }: { view: ApprovalView; pending: number }) {
  const theme = useTheme();
  const options = approvalOptions(view.request);
  const command = sanitize(view.request.summary || JSON.stringify(view.request.input) || '');
  const lines = command.split('\n');
  const detailAbove = view.detailAbove;
  const shown = detailAbove ? lines.slice(0, 3).join('\n') : command;
  return (
    <Box flexDirection="column" borderStyle={boxBorder(theme)} borderColor={theme.warning} paddingX={1}>
      <Text bold color={theme.warning}>
        {sanitize(view.request.toolName)} wants to run{pending > 1 ? ` (1 of ${pending})` : ''}
      </Text>
      <Box paddingLeft={2} flexDirection="column">
        <Text>{shown}</Text>
        {detailAbove ? <Text color={theme.muted}>… {lines.length - 3} more lines (the full command is printed above)</Text> : null}
      </Box>
      <Box flexDirection="column" marginTop={1}>
        {options.map((o, i) => {
          const selected = i === view.selected;
          return (
            <Text key={o.kind} color={selected ? theme.accent : undefined} bold={selected}>
              {selected ? '❯ ' : '  '}
              {i + 1}. {o.label}
              {o.kind === 'deny' ? (
                selected ? (
                  <Text>
                    {' '}
                    — note to the model: {view.note}
                    <Text inverse> </Text>
                  </Text>
                ) : (
                  <Text color={theme.muted}> (you can add a note)</Text>
                )
              ) : null}
            </Text>
          );
        })}
      </Box>
      <Text color={theme.muted}>enter: choose · ↑↓ or 1–3: select · esc: deny</Text>
    </Box>
  );
}
