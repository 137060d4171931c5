import { homeDir } from '../../runtime/world.js';
import { Box, Text } from 'ink';
import type { ContextUsageView, SessionView } from '../../protocol/views.js';
import { shortId, shortenPath } from '../format.js';
import { sanitize } from '../sanitize.js';
import { useTheme } from '../theme.js';
import { Gauge } from './Gauge.js';
import { PermissionModeBadge } from './PermissionMode.js';
import { useTerminalSize } from './terminal-size.js';

export interface StatusLineProps {
  session: SessionView;
  usage: ContextUsageView;
  home?: string;
}

/** model · cwd · session id (none until a fresh session is open), then the gauge; the breaker / exhausted / thrash notice on its own line. */
export function StatusLine({ session, usage, home = homeDir() }: StatusLineProps) {
  const theme = useTheme();
  const { columns } = useTerminalSize();
  const cwd = shortenPath(session.cwd, home, Math.max(12, Math.floor(columns / 4)));
  return (
    <Box flexDirection="column">
      <Box flexDirection="row" flexWrap="wrap" columnGap={2}>
        <Text wrap="truncate-end" color={theme.muted}>
          {sanitize(session.model)}
          {session.thinking ? ` (${sanitize(session.thinking)})` : ''} · {cwd}
          {session.id ? ` · ${shortId(session.id)}` : ''}
        </Text>
        <Gauge usage={usage} />
        <PermissionModeBadge mode={session.permissionMode} />
        {session.sandbox ? <Text color={session.sandbox.ok ? theme.muted : theme.error}>{sanitize(session.sandbox.text)}</Text> : null}
        {session.mcp ? <Text color={theme.muted}>{sanitize(session.mcp)}</Text> : null}
        {session.background ? <Text color={theme.muted}>{session.background}</Text> : null}
        {session.goal ? <Text color={theme.muted}>{session.goal}</Text> : null}
        {session.unsaved ? <Text color={theme.error}>unsaved: {session.unsaved}</Text> : null}
      </Box>
      {session.statusCommand ? (
        <Text wrap="truncate-end" color={theme.muted}>
          {sanitize(session.statusCommand)}
        </Text>
      ) : null}
      {usage.notice ? (
        <Text color={theme.warning} wrap="wrap">
          ⚠ {sanitize(usage.notice)}
        </Text>
      ) : null}
    </Box>
  );
}
