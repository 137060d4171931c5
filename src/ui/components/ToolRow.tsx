import { useMemo } from 'react';
import { Box, Text } from 'ink';
import { itemLines, toolHeaderLine, type ToolHeaderParts } from '../item-text.js';
import { oneLine, sanitize } from '../sanitize.js';
import { useTheme } from '../theme.js';
import type { ToolItem } from '../transcript.js';
import { numberedLines, parseUnified } from '../../tools/fileDiff.js';
import { DiffView } from './DiffView.js';
import { useTerminalSize } from './terminal-size.js';

/** One line: icon, tool name, key argument (cut to the terminal's width), status word and duration. */
export function ToolHeader(parts: ToolHeaderParts) {
  const theme = useTheme();
  const { columns } = useTerminalSize();
  return <Text>{toolHeaderLine(parts, columns, theme)}</Text>;
}

/** A finished tool call: the header and a one-line preview of the result, or an edit's diff (Ctrl-O shows it all). */
export function ToolRow({ item }: { item: ToolItem }) {
  const theme = useTheme();
  const { columns } = useTerminalSize();
  return <Text>{itemLines(item, columns, theme)!.join('\n')}</Text>;
}

/** Ctrl-O: the whole output of a tool, printed into the transcript. */
export const EXPANDED_MAX_LINES = 2000;

export function ToolOutputView({ name, summary, output }: { name: string; summary: string; output: string }) {
  const theme = useTheme();
  const diffRows = useMemo(() => {
    const d = parseUnified(output);
    return d ? numberedLines(d).slice(0, EXPANDED_MAX_LINES) : undefined;
  }, [output]);
  const { head, tail, hidden } = useMemo(() => {
    const lines = sanitize(output).replace(/\s+$/, '').split('\n');
    if (lines.length <= EXPANDED_MAX_LINES) return { head: lines.join('\n'), tail: '', hidden: 0 };
    return {
      head: lines.slice(0, EXPANDED_MAX_LINES / 2).join('\n'),
      tail: lines.slice(lines.length - EXPANDED_MAX_LINES / 2).join('\n'),
      hidden: lines.length - EXPANDED_MAX_LINES,
    };
  }, [output]);
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold color={theme.tool}>
          {sanitize(name)}
        </Text>{' '}
        {oneLine(summary)} <Text color={theme.muted}>— full output</Text>
      </Text>
      {diffRows ? (
        <Box paddingLeft={2} flexDirection="column">
          <Text>{sanitize(output.split('\n', 1)[0] ?? '')}</Text>
          <DiffView rows={diffRows} />
        </Box>
      ) : null}
      <Box paddingLeft={2} flexDirection="column" display={diffRows ? 'none' : 'flex'}>
        <Text>{head === '' ? '(no output)' : head}</Text>
        {hidden > 0 ? <Text color={theme.muted}>… {hidden} lines not shown …</Text> : null}
        {hidden > 0 ? <Text>{tail}</Text> : null}
      </Box>
    </Box>
  );
}
