import { useEffect, useState, useSyncExternalStore } from 'react';
import { Box, Text } from 'ink';
import { estimateTokens, formatElapsed, formatTokens } from '../format.js';
import { liveOutputRows, liveToolRows, promptRows, queuedRows, streamRowsFor } from '../layout-budget.js';
import { streamTail } from '../live-text.js';
import type { PromptModel } from '../prompt-model.js';
import { oneLine } from '../sanitize.js';
import { useStore } from '../store.js';
import { useTheme } from '../theme.js';
import type { LiveState } from '../live-state.js';
import type { UiStore } from '../ui-store.js';
import { isWorking } from '../live-state.js';
import type { CompactionTrigger } from '../../history/compaction.js';
import { useTerminalSize } from './terminal-size.js';
import { ToolHeader } from './ToolHeader.js';
import { ChildTaskList, childTaskRows } from './TaskList.js';

export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** What the live region says while a compaction of this kind runs. */
export const COMPACTING_LABEL: Record<CompactionTrigger, string> = {
  micro: 'Clearing old tool outputs',
  auto: 'Auto-compacting',
  reactive: 'Context overflow — compacting',
  manual: 'Compacting',
};

const TICK_MS = 120;

/** The current time, refreshed every tick while active (drives the spinner and the elapsed time). */
function useTicker(active: boolean, ms = TICK_MS): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [active, ms]);
  return now;
}

const frameAt = (now: number): string => SPINNER[Math.floor(now / TICK_MS) % SPINNER.length]!;

/** What is happening now: the streaming reply, running tools, compaction progress, the spinner. */
export function LiveRegion({ store, prompt }: { store: UiStore; prompt: PromptModel }) {
  const live = useStore(store.live);
  const approvals = useStore(store.approvals);
  const waitingForApproval = approvals.length > 0;
  // a tool waiting for the person's answer is not running yet: no spinner, no clock (one spinner shows, on the activity line)
  const awaiting = new Set(approvals.map((a) => a.request.toolUseId));
  const { rows } = useTerminalSize();
  // Re-renders only when the prompt's height changes, not on every keystroke.
  const promptHeight = useSyncExternalStore(prompt.store.subscribe, () => promptRows(prompt.store.get(), rows));
  const theme = useTheme();
  // a dumb terminal gets no animation: a still marker, and the elapsed time once a second
  const background = live.compaction?.background ? live.compaction : undefined;
  const now = useTicker(isWorking(live) || background !== undefined, theme.dumb ? 1000 : TICK_MS);
  const frame = theme.dumb ? '*' : frameAt(now);
  const toolRows = liveToolRows(rows);
  const writing = live.writingTools.slice(0, toolRows);
  const running = live.running.slice(0, Math.max(0, toolRows - writing.length));
  const hiddenTools = live.writingTools.length - writing.length + live.running.length - running.length;
  const queued = live.queued.slice(-queuedRows);
  const tails = useStore(store.toolTails);
  const outputRows = liveOutputRows(rows, running.length);
  const shownTails = running.map((t) => (tails[t.id] ?? []).slice(-outputRows));
  // a running sub-agent's own task list, under its row
  const childTodos = useStore(store.tasks.children);
  const childRows = running.reduce((n, t) => n + childTaskRows(childTodos[t.id]), 0);
  const used = promptHeight + writing.length + running.length + queued.length + childRows + shownTails.reduce((n, t) => n + t.length, 0);
  return (
    <Box flexDirection="column">
      <StreamingText store={store} rows={streamRowsFor(rows, used)} />
      {writing.length + running.length > 0 ? (
        <Box flexDirection="column" marginTop={1}>
          {writing.map((t) => (
            <Text key={t.id} color={theme.muted}>
              {frame} {oneLine(t.name)} <Text dimColor>(writing the call…)</Text>
            </Text>
          ))}
          {running.map((t, i) =>
            awaiting.has(t.id) ? (
              <ToolHeader key={t.id} name={t.name} summary={t.summary} status="running" icon="?" right="waiting for your answer" />
            ) : (
              <Box key={t.id} flexDirection="column">
                <ToolHeader name={t.name} summary={t.summary} status="running" icon={frame} right={formatElapsed(now - t.startedAt)} />
                {shownTails[i]!.map((line, j) => (
                  <Text key={j} color={theme.muted} dimColor wrap="truncate-end">
                    {'  '}
                    {j === 0 ? '⎿ ' : '  '}
                    {line === '' ? ' ' : line}
                  </Text>
                ))}
                <ChildTaskList todos={childTodos[t.id]} />
              </Box>
            ),
          )}
          {hiddenTools > 0 ? <Text color={theme.muted}> … and {hiddenTools} more</Text> : null}
        </Box>
      ) : null}
      {background ? (
        <Text color={theme.muted} wrap="truncate-end">
          ✻ {background.trigger === 'manual' ? 'compacting' : 'auto-compacting'}… {formatElapsed(now - background.startedAt)}
          {background.stage ? ` · ${oneLine(background.stage)}` : ''} (esc or /compact cancel stops it)
        </Text>
      ) : null}
      {isWorking(live) ? <ActivityLine store={store} live={live} now={now} frame={frame} waitingForApproval={waitingForApproval} /> : null}
      {live.queued.length > queued.length ? <Text color={theme.muted}>⏵ {live.queued.length - queued.length} more queued</Text> : null}
      {queued.map((q, i) => (
        <Text key={i} color={theme.muted} wrap="truncate-end">
          ⏵ queued: {oneLine(q)}
        </Text>
      ))}
    </Box>
  );
}

/** The block of the reply still being written (finished blocks are already in the transcript). */
function StreamingText({ store, rows }: { store: UiStore; rows: number }) {
  const { text, committed } = useStore(store.stream);
  const { columns } = useTerminalSize();
  const theme = useTheme();
  const block = text.slice(committed);
  if (block.trim() === '') return null;
  const tail = streamTail(block, columns - 2, rows);
  return (
    <Box flexDirection="column" marginTop={1}>
      {tail.clipped ? <Text color={theme.muted}> ⋮</Text> : null}
      <Box flexDirection="row">
        <Box flexShrink={0}>
          <Text color={theme.accent}>{committed > 0 ? '  ' : '● '}</Text>
        </Box>
        <Box flexShrink={1} flexDirection="column">
          {tail.rows.map((row, i) => (
            <Text key={i}>{row === '' ? ' ' : row}</Text>
          ))}
        </Box>
      </Box>
    </Box>
  );
}

interface ActivityProps {
  store: UiStore;
  live: LiveState;
  now: number;
  frame: string;
  waitingForApproval: boolean;
}

/** "⠋ Thinking… (12s · ↓ 1.2k tokens · esc to interrupt)" */
function ActivityLine({ store, live, now, frame, waitingForApproval }: ActivityProps) {
  const theme = useTheme();
  const { chars, text, committed } = useStore(store.stream);
  let label: string;
  let startedAt = live.turn?.startedAt ?? live.busySince ?? now;
  const activity = live.activities.at(-1);
  if (live.compaction && !live.compaction.background) {
    const c = live.compaction;
    label = `${COMPACTING_LABEL[c.trigger]}${c.tokensBefore > 0 ? ` ${formatTokens(c.tokensBefore)} tokens` : ''}${c.stage ? ` · ${oneLine(c.stage)}` : ''}`;
    startedAt = c.startedAt;
  } else if (live.retry && now < live.retry.until) {
    label = `${live.retry.text} in ${formatElapsed(live.retry.until - now + 999)}`;
  } else if (live.waiting && live.running.length === 0) {
    label = live.waiting;
  } else if (waitingForApproval) {
    label = 'Waiting for your answer';
  } else if (activity) {
    label = activity.label;
    startedAt = activity.startedAt;
  } else if (live.running.length > 0) {
    // outside a turn (a `!command`): what runs, on its own clock
    const first = live.running[0]!;
    label = live.turn ? 'Running' : `Running ${oneLine(first.summary || first.name)}`;
    if (!live.turn) startedAt = first.startedAt;
  } else if (live.thinking) {
    label = 'Thinking';
    startedAt = live.thinking.startedAt;
  } else if (committed > 0 || text.trim() !== '') {
    label = 'Writing';
  } else {
    label = 'Thinking';
  }
  const thought = live.thinking ? estimateTokens(live.thinking.text.length) : 0;
  const tokens = (live.turn?.outputTokens ?? 0) + estimateTokens(chars) + thought;
  const details = [formatElapsed(now - startedAt)];
  if (live.turn && tokens > 0) details.push(`↓ ${formatTokens(tokens)} tokens`);
  if (label === 'Thinking' && thought > 0) details.push(`${formatTokens(thought)} thinking`);
  details.push('esc to interrupt');
  return (
    <Box marginTop={1}>
      <Text wrap="truncate-end">
        <Text color={theme.accent}>{frame}</Text>{' '}
        <Text color={live.compaction && !live.compaction.background ? theme.info : label === 'Thinking' ? theme.muted : undefined}>{label}…</Text>{' '}
        <Text color={theme.muted}>({details.join(' · ')})</Text>
      </Text>
    </Box>
  );
}
