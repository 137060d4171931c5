import { Box, Text } from 'ink';
import type { NumberedDiffLine } from '../../tools/fileDiff.js';
import { sanitize } from '../sanitize.js';
import { useTheme } from '../theme.js';

/** Rows of a diff with old/new line numbers, added lines green, removed red; each cut to the width. */
export function DiffView({ rows, from = 0, max = rows.length }: { rows: readonly NumberedDiffLine[]; from?: number; max?: number }) {
  const theme = useTheme();
  const shown = rows.slice(from, from + max);
  const width = String(rows.reduce((m, r) => Math.max(m, r.oldNo ?? 0, r.newNo ?? 0), 0)).length;
  const num = (n: number | undefined): string => (n === undefined ? ' '.repeat(width) : String(n).padStart(width));
  return (
    <Box flexDirection="column">
      {shown.map((r, i) => {
        if (r.kind === 'hunk') {
          return (
            <Text key={i} color={theme.info} dimColor wrap="truncate-end">
              {r.text}
            </Text>
          );
        }
        if (r.kind === 'note') {
          return (
            <Text key={i} color={theme.muted} wrap="truncate-end">
              {'  '}\ {r.text}
            </Text>
          );
        }
        const mark = r.kind === 'add' ? '+' : r.kind === 'remove' ? '-' : ' ';
        const color = r.kind === 'add' ? theme.success : r.kind === 'remove' ? theme.error : undefined;
        return (
          <Text key={i} wrap="truncate-end">
            <Text color={theme.muted}>
              {num(r.oldNo)} {num(r.newNo)}{' '}
            </Text>
            <Text color={color} dimColor={r.kind === 'context'}>
              {mark} {sanitize(r.text.replace(/\t/g, '  '))}
            </Text>
          </Text>
        );
      })}
    </Box>
  );
}
