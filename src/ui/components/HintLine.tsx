import { Text } from 'ink';
import type { Hint } from '../live-state.js';
import { useTheme } from '../theme.js';

/** The line above the footer: a flashed hint (Ctrl-C again…, an SDK's notice), else the keys. */
export function HintLine({ hint }: { hint: Hint }) {
  const theme = useTheme();
  if (!hint) {
    return (
      <Text color={theme.muted} dimColor wrap="truncate-end">
        /help commands & keys · enter send · ctrl+j new line · esc interrupt · ctrl+c ×2 exit
      </Text>
    );
  }
  return (
    <Text
      color={hint.level === 'warning' ? theme.warning : hint.level === 'notice' ? theme.muted : theme.info}
      dimColor={hint.level === 'notice'}
      wrap="truncate-end"
    >
      {hint.text}
    </Text>
  );
}
