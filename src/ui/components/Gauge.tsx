import { Text } from 'ink';
import type { ContextUsageView } from '../../protocol/views.js';
import { useTheme } from '../theme.js';

const CELLS = 10;

/**
 * "██░░░░░░│░" for the share of the effective window in use; `markAt` (percent used) puts a
 * `mark` ("│"; "|" on a dumb terminal) on the cell where auto compaction fires, while the bar has not reached it.
 */
export function gaugeBar(percentLeft: number, cells = CELLS, markAt?: number, mark = '│'): string {
  const used = Math.min(100, Math.max(0, 100 - percentLeft));
  const filled = Math.round((used / 100) * cells);
  const cellsOf = [...'█'.repeat(filled), ...'░'.repeat(cells - filled)];
  if (markAt !== undefined && markAt > 0 && markAt < 100) {
    const at = Math.min(cells - 1, Math.floor((markAt / 100) * cells));
    if (at >= filled) cellsOf[at] = mark;
  }
  return cellsOf.join('');
}

/** The words after the percentage: what the state means for the person (a compaction written in the background first). */
export function gaugeLabel(u: ContextUsageView): string {
  const left = `${Math.max(0, Math.round(u.percentLeft))}% context left`;
  if (u.compacting && u.state !== 'blocking')
    return `${left} · ${u.compacting.ready ? 'summary ready, swapped in at the next turn' : 'compacting in the background'}`;
  switch (u.state) {
    case 'ok':
      return left;
    case 'warning':
      // one meaning throughout: how much is left (auto compaction fires when this much is left)
      return u.autoCompactEnabled ? `${left} · auto-compact at ${Math.max(0, 100 - Math.round(u.autoCompactAtPercent))}% left` : `${left} · auto-compact off`;
    case 'compact-soon':
      return u.autoCompactEnabled ? `${left} · compacting soon` : `${left} · /compact soon`;
    case 'blocking':
      return `${left} · context full — compaction needed`;
  }
}

/** The token gauge: a bar with the auto-compaction mark and "N% context left", coloured by state; no figure while it is only rough (views.ts). */
export function Gauge({ usage }: { usage: ContextUsageView }) {
  const theme = useTheme();
  if (usage.rough) return <Text color={theme.muted}>counting context…</Text>;
  const color = theme.gauge[usage.state];
  const strong = usage.state === 'compact-soon' || usage.state === 'blocking';
  return (
    <Text wrap="truncate-end">
      <Text color={color}>{gaugeBar(usage.percentLeft, CELLS, usage.autoCompactEnabled ? usage.autoCompactAtPercent : undefined, theme.dumb ? '|' : '│')}</Text>
      <Text color={color} bold={strong}>
        {' '}
        {gaugeLabel(usage)}
      </Text>
    </Text>
  );
}
