import { Box, Text } from 'ink';
import { BASH_CAVEAT, TREE_NOTE } from '../../commands/rewind.js';
import { formatAge } from '../format.js';
import { oneLine } from '../sanitize.js';
import { boxBorder, useTheme } from '../theme.js';
import type { RewindPickerState } from '../rewind-picker.js';
import { rewindChoices } from '../rewind-picker.js';
import { useTerminalSize } from './terminal-size.js';

/** /rewind: the person's earlier turns (newest at the bottom), then code / conversation / both. */
export function RewindPicker({ state, now = Date.now() }: { state: RewindPickerState; now?: number }) {
  const theme = useTheme();
  const { rows } = useTerminalSize();
  const max = Math.max(3, rows - 12);
  const start = Math.max(0, Math.min(state.selected - Math.floor(max / 2), state.targets.length - max));
  const shown = state.targets.slice(start, start + max);
  const target = state.targets[state.selected];
  if (state.overwrite) return <OverwriteQuestion files={state.overwrite.files} command={state.overwrite.command} />;
  return (
    <Box flexDirection="column" borderStyle={boxBorder(theme)} borderColor={theme.accent} paddingX={1}>
      <Text bold color={theme.accent}>
        Rewind to before which turn?
      </Text>
      {shown.map((t) => {
        const selected = t.index - 1 === state.selected;
        const files = t.files.length > 0 ? ` · ${t.files.length} file${t.files.length === 1 ? '' : 's'} changed since` : '';
        return (
          <Text key={t.turnId} color={selected ? theme.accent : undefined} bold={selected} wrap="truncate-end">
            {selected ? '❯ ' : '  '}
            {t.index}. {oneLine(t.text)}
            <Text color={theme.muted}>
              {' '}
              ({formatAge(t.createdAt, now)}
              {files}
              {t.inConversation ? '' : ` · ${t.gone ?? 'compacted'}: code only`})
            </Text>
          </Text>
        );
      })}
      {state.choosing && target ? (
        <Box flexDirection="column" marginTop={1}>
          <Text bold>Restore:</Text>
          {rewindChoices(target).map((c, i) => {
            const selected = i === state.choosing!.what;
            return (
              <Text key={c.what} color={c.disabled ? theme.muted : selected ? theme.accent : undefined} bold={selected} wrap="truncate-end">
                {selected ? '❯ ' : '  '}
                {i + 1}. {c.label}
                {c.disabled ? ` — not available: ${c.disabled}` : ''}
              </Text>
            );
          })}
          {target.files.length > 0 ? (
            <Text color={theme.muted} wrap="truncate-end">
              Files restored by a code rewind: {target.files.slice(0, 6).join(', ')}
              {target.files.length > 6 ? ', …' : ''}
            </Text>
          ) : null}
        </Box>
      ) : null}
      <Text color={theme.warning} wrap="wrap">
        {state.targets.some((t) => t.checkpoint !== undefined) ? TREE_NOTE : `⚠ ${BASH_CAVEAT}`}
      </Text>
      <Text color={theme.muted}>{state.choosing ? 'enter: rewind · ↑↓ or 1–3: select · esc: back' : 'enter: choose · ↑↓: select · esc: cancel'}</Text>
    </Box>
  );
}

/** A rewind would overwrite files changed since the agent's last turn: which, and whether to go on. */
function OverwriteQuestion({ files, command }: { files: string[]; command: string }) {
  const theme = useTheme();
  return (
    <Box flexDirection="column" borderStyle={boxBorder(theme)} borderColor={theme.warning} paddingX={1}>
      <Text bold color={theme.warning}>
        {files.length === 1 ? 'This file was' : `These ${files.length} files were`} changed since the agent's last turn (not by the agent):
      </Text>
      {files.slice(0, 8).map((f) => (
        <Text key={f} wrap="truncate-end">
          {'  '}
          {oneLine(f)}
        </Text>
      ))}
      {files.length > 8 ? <Text color={theme.muted}> … and {files.length - 8} more</Text> : null}
      <Text>
        {oneLine(command)} would overwrite {files.length === 1 ? 'it' : 'them'}. Rewind anyway? (/rewind undo takes it back)
      </Text>
      <Text color={theme.muted}>y: rewind anyway · n or esc: leave the files as they are</Text>
    </Box>
  );
}
