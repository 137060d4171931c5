import { Text } from 'ink';
import { toolHeaderLine, type ToolHeaderParts } from '../item-text.js';
import { useTheme } from '../theme.js';
import { useTerminalSize } from './terminal-size.js';

/** One line: icon, tool name, key argument (cut to the terminal's width), status word and duration. */
export function ToolHeader(parts: ToolHeaderParts) {
  const theme = useTheme();
  const { columns } = useTerminalSize();
  return <Text>{toolHeaderLine(parts, columns, theme)}</Text>;
}
