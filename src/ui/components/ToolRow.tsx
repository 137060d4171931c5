import { Text } from 'ink';
import { itemLines, toolHeaderLine, type ToolHeaderParts } from '../item-text.js';
import { useTheme } from '../theme.js';
import type { ToolItem } from '../transcript.js';
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
