import { memo, useMemo } from 'react';
import { Box, Text } from 'ink';
import { renderMarkdownWhenLoaded } from '../markdown-lazy.js';
import { oneLine, sanitize } from '../sanitize.js';
import { useTheme } from '../theme.js';
import type { TranscriptItem } from '../transcript.js';
import { CommandOutputView } from './CommandOutputView.js';
import { CompactionReceipt } from './CompactionReceipt.js';
import { ItemErrorBoundary } from './ItemErrorBoundary.js';
import { useTerminalSize } from './terminal-size.js';
import { ToolOutputView, ToolRow } from './ToolRow.js';

let renders = 0;
/** How many transcript items have been rendered so far (the render-cost tests and the benchmark read it). */
export const itemRenderCount = (): number => renders;

const USER_MAX_LINES = 30;
const CHECKPOINT_PREVIEW_LINES = 6;

function clip(text: string, max: number): { shown: string; hidden: number } {
  const lines = text.split('\n');
  if (lines.length <= max) return { shown: text, hidden: 0 };
  return { shown: lines.slice(0, max).join('\n'), hidden: lines.length - max };
}

/** One finished transcript item. Rendered once, through <Static>. */
export const ItemView = memo(function ItemView({ item }: { item: TranscriptItem }) {
  renders++;
  return (
    <Box flexDirection="column" marginTop={1}>
      <ItemErrorBoundary>
        <ItemBody item={item} />
      </ItemErrorBoundary>
    </Box>
  );
});

function ItemBody({ item }: { item: TranscriptItem }) {
  const theme = useTheme();
  switch (item.kind) {
    case 'user':
      return <UserMessage text={item.text} attachments={item.attachments} />;
    case 'assistant':
      return <AssistantMessage text={item.text} interrupted={item.interrupted} continued={item.continued === true} />;
    case 'tool':
      return <ToolRow item={item} />;
    case 'tool_output':
      return <ToolOutputView name={item.name} summary={item.summary} output={item.output} />;
    case 'checkpoint':
      return <Checkpoint text={item.text} />;
    case 'meta':
      return (
        <Text color={theme.muted} wrap="truncate-end">
          ↻ {oneLine(item.text)}
        </Text>
      );
    case 'compaction':
      return <CompactionReceipt record={item.record} />;
    case 'compaction_skipped':
      return (
        <Text color={theme.warning}>
          ⚠ Compaction ({item.trigger}) skipped: {oneLine(item.reason)}
        </Text>
      );
    case 'notice': {
      const color = item.level === 'error' ? theme.error : item.level === 'warning' ? theme.warning : theme.info;
      const icon = item.level === 'error' ? '✗' : item.level === 'warning' ? '⚠' : 'ℹ';
      return (
        <Text color={color}>
          {icon} {sanitize(item.text)}
        </Text>
      );
    }
    case 'error':
      return <Text color={theme.error}>✗ Error: {sanitize(item.text)}</Text>;
    case 'retry':
      return <Text color={theme.warning}>↻ {sanitize(item.text)}</Text>;
    case 'command':
      return <CommandOutputView command={item.command} output={item.output} />;
    case 'approval_detail':
      return (
        <Box flexDirection="column">
          <Text color={theme.warning}>{sanitize(item.toolName)} asks to run:</Text>
          <Box paddingLeft={2}>
            <Text>{sanitize(item.summary)}</Text>
          </Box>
        </Box>
      );
  }
}

function UserMessage({ text, attachments }: { text: string; attachments?: string[] | undefined }) {
  const theme = useTheme();
  const { shown, hidden } = useMemo(() => clip(sanitize(text).replace(/\s+$/, ''), USER_MAX_LINES), [text]);
  return (
    <Box flexDirection="row">
      <Box flexShrink={0}>
        <Text color={theme.user} bold>
          ❯{' '}
        </Text>
      </Box>
      <Box flexDirection="column" flexShrink={1}>
        <Text color={theme.user}>{shown}</Text>
        {hidden > 0 ? <Text color={theme.muted}>… {hidden} more lines</Text> : null}
        {attachments?.map((a) => (
          <Text key={a} color={theme.muted} wrap="truncate-end">
            ⎿ attached @{oneLine(a)}
          </Text>
        ))}
      </Box>
    </Box>
  );
}

/** A reply (or, `continued`, a later block of one) as Markdown; an interrupted one says so. */
export function AssistantMessage({ text, interrupted, continued = false }: { text: string; interrupted: boolean; continued?: boolean }) {
  const theme = useTheme();
  const { columns } = useTerminalSize();
  const rendered = useMemo(() => renderMarkdownWhenLoaded(text, { width: columns - 3, color: theme.color }), [text, columns, theme.color]);
  if (continued && rendered === '' && !interrupted) return null;
  return (
    <Box flexDirection="column">
      <Box flexDirection="row">
        <Box flexShrink={0}>
          <Text color={theme.accent}>{continued ? '  ' : '● '}</Text>
        </Box>
        {rendered !== '' || !continued ? (
          <Box flexShrink={1}>
            <Text>{rendered === '' ? ' ' : rendered}</Text>
          </Box>
        ) : null}
      </Box>
      {interrupted ? (
        <Box paddingLeft={2}>
          <Text color={theme.warning}>■ interrupted</Text>
        </Box>
      ) : null}
    </Box>
  );
}

function Checkpoint({ text }: { text: string }) {
  const theme = useTheme();
  const { shown, hidden } = useMemo(() => clip(sanitize(text).trim(), CHECKPOINT_PREVIEW_LINES), [text]);
  return (
    <Box flexDirection="column">
      <Text color={theme.info} bold>
        ⎔ Checkpoint — the conversation above this point was summarized
      </Text>
      <Box paddingLeft={2} flexDirection="column">
        <Text color={theme.muted}>{shown}</Text>
        {hidden > 0 ? <Text color={theme.muted}>… {hidden} more lines in the summary</Text> : null}
      </Box>
    </Box>
  );
}
