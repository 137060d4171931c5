import { memo } from 'react';
import { Box, Text } from 'ink';
import { itemLines } from '../item-text.js';
import { useTheme } from '../theme.js';
import type { TranscriptItem } from '../transcript.js';
import { ItemErrorBoundary } from './ItemErrorBoundary.js';
import { useTerminalSize } from './terminal-size.js';

let renders = 0;
/** How many transcript items have been rendered so far (the render-cost tests and the benchmark read it). */
export const itemRenderCount = (): number => renders;

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

/** Lines of styled text (item-text.ts); an item that fails to draw shows ItemErrorBoundary's line instead. */
function ItemBody({ item }: { item: TranscriptItem }) {
  const theme = useTheme();
  const { columns } = useTerminalSize();
  const lines = itemLines(item, columns, theme);
  return lines ? <Text>{lines.join('\n')}</Text> : null;
}
