import { useMemo } from 'react';
import { Box, Text } from 'ink';
import { formatDuration, formatTokens } from '../format.js';
import { oneLine, sanitize } from '../sanitize.js';
import type { Theme } from '../theme.js';
import { useTheme } from '../theme.js';
import type { ToolItem, ToolStatus } from '../transcript.js';
import { previewOf } from '../transcript.js';
import { cutForModel } from '../tool-progress.js';
import { numberedLines, parseUnified, type FileDiff } from '../../tools/fileDiff.js';
import { DiffView } from './DiffView.js';

/** Diff rows an applied edit shows in the transcript; Ctrl-O shows the rest. */
export const EDIT_PREVIEW_ROWS = 8;

/** The diff an Edit/Write result carries, with the counts from its first line ("Edited a.ts (+2 −1)…") when the diff was cut. */
export function editDiffOf(item: Pick<ToolItem, 'status' | 'output' | 'clearedTokens'>): FileDiff | undefined {
  if (item.status !== 'done' || item.clearedTokens !== undefined) return undefined;
  const diff = parseUnified(item.output);
  if (!diff) return undefined;
  const m = /\(\+(\d+) −(\d+)\)/.exec(item.output.split('\n', 1)[0] ?? '');
  return m ? { ...diff, added: Number(m[1]), removed: Number(m[2]) } : diff;
}

const ICON: Record<ToolStatus, string> = { running: '…', done: '✓', error: '✗', denied: '⊘', interrupted: '■' };

export function statusColor(status: ToolStatus, theme: Theme): string | undefined {
  switch (status) {
    case 'running':
      return theme.accent;
    case 'done':
      return theme.success;
    case 'error':
      return theme.error;
    case 'denied':
      return theme.warning;
    case 'interrupted':
      return theme.warning;
  }
}

export interface ToolHeaderProps {
  name: string;
  summary: string;
  status: ToolStatus;
  /** Replaces the icon (the spinner frame of a running tool). */
  icon?: string;
  /** Right-hand side: duration, or elapsed time while running. */
  right?: string;
}

/** One line: icon, tool name, key argument (cut to fit), status word and duration. */
export function ToolHeader({ name, summary, status, icon, right }: ToolHeaderProps) {
  const theme = useTheme();
  const color = statusColor(status, theme);
  const word = status === 'done' || status === 'running' ? '' : status;
  const tail = [word, right].filter(Boolean).join(' · ');
  const arg = oneLine(summary);
  return (
    <Box flexDirection="row">
      <Box flexShrink={1}>
        <Text wrap="truncate-end">
          <Text color={color}>{icon ?? ICON[status]}</Text> <Text bold color={theme.tool}>{sanitize(name)}</Text>
          {arg ? ` ${arg}` : ''}
        </Text>
      </Box>
      {tail ? (
        <Box flexShrink={0}>
          <Text color={status === 'done' ? theme.muted : color} dimColor={status === 'done'}>
            {' '}
            · {tail}
          </Text>
        </Box>
      ) : null}
    </Box>
  );
}

/** A finished tool call: the header and a one-line preview of the result (Ctrl-O shows it all). */
export function ToolRow({ item }: { item: ToolItem }) {
  const diff = useMemo(() => editDiffOf(item), [item]);
  if (diff) return <EditRow item={item} diff={diff} />;
  return <PlainToolRow item={item} />;
}

/** An applied edit: `path +N −M` and the start of its diff. */
function EditRow({ item, diff }: { item: ToolItem; diff: FileDiff }) {
  const theme = useTheme();
  const rows = useMemo(() => numberedLines(diff), [diff]);
  const right = item.durationMs !== undefined ? formatDuration(item.durationMs) : undefined;
  const more = rows.length - EDIT_PREVIEW_ROWS;
  return (
    <Box flexDirection="column">
      <ToolHeader name={item.name} summary={item.summary} status={item.status} {...(right ? { right } : {})} />
      <Box paddingLeft={2} flexDirection="column">
        <Text wrap="truncate-end">
          <Text color={theme.muted}>⎿ </Text>
          {sanitize(diff.path)} <Text color={theme.success}>+{diff.added}</Text> <Text color={theme.error}>−{diff.removed}</Text>
          {diff.created ? <Text color={theme.muted}> (new file)</Text> : null}
        </Text>
        <Box paddingLeft={2} flexDirection="column">
          <DiffView rows={rows} max={EDIT_PREVIEW_ROWS} />
          {more > 0 ? <Text color={theme.muted}>… {more} more diff lines (ctrl+o to expand)</Text> : null}
        </Box>
      </Box>
    </Box>
  );
}

function PlainToolRow({ item }: { item: ToolItem }) {
  const theme = useTheme();
  const preview = useMemo(() => previewOf(sanitize(item.output)), [item.output]);
  const right = item.durationMs !== undefined ? formatDuration(item.durationMs) : undefined;
  let line = preview.line;
  if (item.clearedTokens !== undefined) line = `output cleared by compaction (${formatTokens(item.clearedTokens)} tokens archived)`;
  else if (line === '') line = item.status === 'interrupted' ? 'stopped before it finished' : '(no output)';
  const more = item.clearedTokens === undefined && preview.more > 0 ? ` (+${preview.more} ${preview.more === 1 ? 'line' : 'lines'})` : '';
  const cut = item.clearedTokens === undefined ? cutForModel(item.output) : undefined;
  return (
    <Box flexDirection="column">
      <ToolHeader name={item.name} summary={item.summary} status={item.status} {...(right ? { right } : {})} />
      <Box flexDirection="row" paddingLeft={2}>
        <Box flexShrink={0}>
          <Text color={theme.muted}>⎿ </Text>
        </Box>
        <Box flexShrink={1}>
          <Text wrap="truncate-end" color={item.status === 'error' ? theme.error : undefined} dimColor={item.status !== 'error'}>
            {line}
          </Text>
        </Box>
        {more ? (
          <Box flexShrink={0}>
            <Text color={theme.muted} dimColor>
              {more}
            </Text>
          </Box>
        ) : null}
      </Box>
      {cut ? (
        <Box paddingLeft={4}>
          <Text color={theme.warning} wrap="truncate-end">
            model got a cut copy ({cut.lines} lines left out) · ctrl+o shows {item.fullOutput ? 'all' : 'what it got'}
          </Text>
        </Box>
      ) : null}
    </Box>
  );
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
