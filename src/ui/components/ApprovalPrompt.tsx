import { Box, Text } from 'ink';
import type { ApprovalView } from '../approval.js';
import { approvalOptions } from '../approval.js';
import { sanitize } from '../sanitize.js';
import { boxBorder, useTheme } from '../theme.js';
import { DiffView } from './DiffView.js';
import { useTerminalSize } from './terminal-size.js';

/** Rows the approval box needs besides the diff (title, stat, options, help, borders). */
const CHROME_ROWS = 14;

/** How many diff rows fit on a screen of `rows` rows. */
export const diffRowsFor = (rows: number): number => Math.max(4, rows - CHROME_ROWS);

/**
 * "Bash wants to run …" with the command in full, or "Edit wants to change path" with the diff
 * (scrollable when it is taller than the screen); then the options.
 */
export function ApprovalPrompt({ view, pending }: { view: ApprovalView; pending: number }) {
  const theme = useTheme();
  const { rows } = useTerminalSize();
  const options = approvalOptions(view.request);
  const req = view.request;
  const diff = req.diff;
  const of = pending > 1 ? ` (1 of ${pending})` : '';
  return (
    <Box flexDirection="column" borderStyle={boxBorder(theme)} borderColor={theme.warning} paddingX={1}>
      {req.agent ? (
        <Text color={theme.accent} wrap="truncate-end">
          sub-agent {sanitize(req.agent)} asks:
        </Text>
      ) : null}
      {diff ? <EditHeader view={view} of={of} /> : <CommandHeader view={view} of={of} />}
      {diff ? <DiffBody view={view} max={diffRowsFor(rows)} /> : null}
      <Box flexDirection="column" marginTop={1}>
        {options.map((o, i) => {
          const selected = i === view.selected;
          const denial = o.kind === 'deny' || o.kind === 'stop';
          return (
            <Text key={o.kind} color={selected ? theme.accent : undefined} bold={selected}>
              {selected ? '❯ ' : '  '}
              {i + 1}. {o.label}
              {denial && selected ? (
                <Text>
                  {' '}
                  — note: {view.note}
                  <Text inverse> </Text>
                </Text>
              ) : null}
            </Text>
          );
        })}
      </Box>
      <Text color={theme.muted}>
        enter: choose · ↑↓ or 1–{options.length}: select · esc: deny and stop{diff && view.diffRows.length > diffRowsFor(rows) ? ' · pgup/pgdn: scroll the diff' : ''}
      </Text>
    </Box>
  );
}

function CommandHeader({ view, of }: { view: ApprovalView; of: string }) {
  const theme = useTheme();
  const command = sanitize(view.request.summary || JSON.stringify(view.request.input) || '');
  const lines = command.split('\n');
  const shown = view.detailAbove ? lines.slice(0, 3).join('\n') : command;
  return (
    <>
      <Text bold color={theme.warning}>
        {sanitize(view.request.toolName)} wants to run{of}
      </Text>
      <Box paddingLeft={2} flexDirection="column">
        <Text>{shown}</Text>
        {view.detailAbove ? <Text color={theme.muted}>… {lines.length - 3} more lines (the full command is printed above)</Text> : null}
      </Box>
    </>
  );
}

function EditHeader({ view, of }: { view: ApprovalView; of: string }) {
  const theme = useTheme();
  const d = view.request.diff!;
  return (
    <>
      <Text bold color={theme.warning} wrap="truncate-end">
        {sanitize(view.request.toolName)} wants to {d.created ? 'create' : 'change'} {sanitize(d.path)}
        {of}
      </Text>
      <Text wrap="truncate-end">
        <Text color={theme.success}>+{d.added}</Text> <Text color={theme.error}>−{d.removed}</Text>
        {view.request.outsideCwd ? <Text color={theme.warning}> · outside the working directory</Text> : null}
      </Text>
    </>
  );
}

function DiffBody({ view, max }: { view: ApprovalView; max: number }) {
  const theme = useTheme();
  const total = view.diffRows.length;
  const from = Math.min(view.scroll, Math.max(0, total - max));
  const below = total - from - max;
  return (
    <Box flexDirection="column" marginTop={1}>
      {from > 0 ? <Text color={theme.muted}>  ↑ {from} more lines</Text> : null}
      <DiffView rows={view.diffRows} from={from} max={max} />
      {below > 0 ? <Text color={theme.muted}>  ↓ {below} more lines</Text> : null}
    </Box>
  );
}
