import { Box, Text } from 'ink';
import { diffNumberWidth, diffRowSpec } from '../item-text.js';
import type { NumberedDiffLine } from '../../tools/fileDiff.js';
import { useTheme } from '../theme.js';

/** Rows of a diff with old/new line numbers, added lines green, removed red; each cut to the width. */
export function DiffView({ rows, from = 0, max = rows.length }: { rows: readonly NumberedDiffLine[]; from?: number; max?: number }) {
  const theme = useTheme();
  const numberWidth = diffNumberWidth(rows);
  return (
    <Box flexDirection="column">
      {rows.slice(from, from + max).map((r, i) => {
        const { text, style } = diffRowSpec(r, numberWidth, theme);
        return (
          <Text key={i} color={style.color} dimColor={style.dim === true} wrap="truncate-end">
            {text}
          </Text>
        );
      })}
    </Box>
  );
}
