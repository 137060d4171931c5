import { Text } from 'ink';
import { useTheme } from '../theme.js';

const LABEL: Record<string, string> = {
  ask: 'ask before edits and commands',
  acceptEdits: '⏵⏵ accept edits',
  plan: '⏸ plan mode (only reads run)',
  allow: '⚠ allow everything',
  deny: '⊘ read-only (deny)',
};

/** The permission mode in the footer; Shift+Tab cycles it. */
export function PermissionModeBadge({ mode }: { mode: string | undefined }) {
  const theme = useTheme();
  if (mode === undefined) return null;
  const color = mode === 'acceptEdits' || mode === 'plan' ? theme.accent : mode === 'allow' ? theme.warning : mode === 'deny' ? theme.error : theme.muted;
  return (
    <Text wrap="truncate-end" color={color}>
      {LABEL[mode] ?? mode} <Text color={theme.muted}>(shift+tab)</Text>
    </Text>
  );
}
