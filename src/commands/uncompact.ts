// /uncompact: list the compactions in effect, or undo one (the last by default), whole or
// only its newest archived messages.
import type { Session } from '../session/session.js';
import type { UncompactTarget } from '../session/uncompact.js';
import type { CommandOutput } from '../protocol/views.js';
import { preview } from './rewind.js';
import { fmtInt, plural } from '../tools/format.js';

export const UNCOMPACT_USAGE = 'usage: /uncompact [list | <n> [newest <count>]] (n from /uncompact list; alone it undoes the last compaction)';

const when = (t: number): string => new Date(t).toISOString().slice(0, 16).replace('T', ' ');

export async function uncompactCommand(session: Session, args: string): Promise<CommandOutput> {
  const words = args.trim().split(/\s+/).filter(Boolean);
  if (words[0]?.toLowerCase() === 'list') {
    if (words.length > 1) throw new Error(UNCOMPACT_USAGE);
    return { kind: 'text', text: formatTargets(session.edits.uncompactTargets()) };
  }
  const [ref, word, count, ...rest] = words;
  let newest: number | undefined;
  if (word !== undefined) {
    newest = Number(count);
    if (word.toLowerCase() !== 'newest' || !Number.isInteger(newest) || newest < 1 || rest.length > 0) throw new Error(UNCOMPACT_USAGE);
  }
  const plan = await session.edits.uncompact(ref, newest);
  if (!plan.ok) return { kind: 'text', text: plan.message };
  const also = plan.alsoUndone > 0 ? ` (and the ${plan.alsoUndone === 1 ? 'compaction' : `${plan.alsoUndone} compactions`} after it)` : '';
  const what =
    newest === undefined
      ? `Undid compaction ${plan.target.index}${also}`
      : `Brought back the newest ${plan.restored} messages compacted by compaction ${plan.target.index}`;
  return {
    kind: 'text',
    text:
      `${what}: ${plan.restored >= 0 ? fmtInt(plan.restored) : 0} more message${plan.restored === 1 ? '' : 's'} in view, the context is now ${fmtInt(plan.tokens)} tokens. ` +
      `The summary stays searchable with /history.`,
  };
}

function formatTargets(targets: readonly UncompactTarget[]): string {
  if (targets.length === 0) return 'No compaction of this session can be undone (compactions made before this version cannot be).';
  const lines = targets.map(
    (t) =>
      `${String(t.index).padStart(3)}. ${when(t.createdAt)} ${t.trigger.padEnd(8)} ${t.id} — ${plural(t.hidden, 'message')} ` +
      `archived, ${fmtInt(t.tokensBefore)} → ${fmtInt(t.tokensAfter)} tokens`,
  );
  return [...lines, '', preview(UNCOMPACT_USAGE, 200)].join('\n');
}
