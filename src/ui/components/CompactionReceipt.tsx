import { Box, Text } from 'ink';
import type { CompactionRecord, CompactionTrigger } from '../../compaction/types.js';
import { formatDuration, formatTokens, plural } from '../format.js';
import { oneLine } from '../sanitize.js';
import { useTheme } from '../theme.js';

/** What the live region says while a compaction of this kind runs. */
export const COMPACTING_LABEL: Record<CompactionTrigger, string> = {
  micro: 'Clearing old tool outputs',
  auto: 'Auto-compacting',
  reactive: 'Context overflow — compacting',
  manual: 'Compacting',
};

const METHOD_NOTE: Record<string, string> = {
  chunked: 'summarized in chunks',
  trimmed: 'summarized after dropping tool outputs that did not fit',
  metadata: 'the summarizer failed: a metadata-only checkpoint was written',
};

/** The receipt's main line. */
export function receiptText(r: CompactionRecord): string {
  const reason = r.reason ? oneLine(r.reason) : '';
  if (r.status === 'failed') return `Compaction failed: ${reason || 'unknown error'} — nothing was changed`;
  const sizes = `${formatTokens(r.tokensBefore)} → ${formatTokens(r.tokensAfter)} tokens`;
  if (r.status === 'ineffective') {
    return `Compaction would not shrink the context (${reason || sizes}) — nothing was changed`;
  }
  const duration = formatDuration(r.durationMs);
  if (r.trigger === 'micro') return `Cleared ${plural(r.archivedCount, 'old tool output')} · ${sizes} · ${duration}`;
  return `Compacted ${sizes} · archived ${plural(r.archivedCount, 'message')} · kept ${r.preservedCount.toLocaleString('en-US')} · ${duration}`;
}

/** A compaction's receipt, or its failure (which always says nothing was changed). */
export function CompactionReceipt({ record }: { record: CompactionRecord }) {
  const theme = useTheme();
  const ok = record.status === 'applied';
  const color = record.status === 'failed' ? theme.error : ok ? theme.success : theme.warning;
  const trigger = record.focus ? `${record.trigger}, focus: ${oneLine(record.focus)}` : record.trigger;
  const note = ok && record.method ? METHOD_NOTE[record.method] : undefined;
  return (
    <Box flexDirection="column">
      <Box flexDirection="row">
        <Box flexShrink={0}>
          <Text color={color}>{ok ? '✻' : record.status === 'failed' ? '✗' : '⚠'} </Text>
        </Box>
        <Box flexShrink={1}>
          <Text wrap="wrap">
            <Text color={color}>{receiptText(record)}</Text>
            <Text color={theme.muted}> ({trigger})</Text>
          </Text>
        </Box>
      </Box>
      {note ? (
        <Box paddingLeft={2}>
          <Text color={theme.muted}>{note}</Text>
        </Box>
      ) : null}
    </Box>
  );
}
