// /rewind: list the person's earlier turns, or go back to one (code, conversation or both).
import type { Session } from '../session/session.js';
import type { RewindWhat } from '../session/rewind.js';
import type { CommandOutput, RewindTargetView } from '../protocol/views.js';

export const BASH_CAVEAT = 'Only changes made by Edit and Write are restored: what Bash commands did (files they wrote, installs, commits) cannot be rewound.';
export const REWIND_USAGE =
  'usage: /rewind <turn number> code|conversation|both (/rewind alone lists the turns; /rewind undo takes back the last conversation rewind)';

const WHAT = new Set<RewindWhat>(['code', 'conversation', 'both']);

/** "/rewind" → the list (the app opens a picker); "/rewind 3 code" → does it. */
export async function rewindCommand(session: Session, args: string): Promise<CommandOutput> {
  const [ref, what, ...rest] = args.trim().split(/\s+/).filter(Boolean);
  if (ref?.toLowerCase() === 'undo' && what === undefined) {
    const plan = await session.edits.undoRewind();
    if (!plan.ok) return { kind: 'text', text: plan.message };
    return {
      kind: 'text',
      text:
        `Undid the last rewind: ${plan.restored} message${plan.restored === 1 ? '' : 's'} back in the conversation, the context is now ${plan.tokens.toLocaleString('en-US')} tokens. ` +
        `Files stay as they are now (a code rewind is not taken back).`,
    };
  }
  if (ref === undefined) {
    const targets = session.edits.rewindTargets();
    if (targets.length === 0) return { kind: 'text', text: 'Nothing to rewind yet: no earlier turn in this session.' };
    return { kind: 'rewind', targets };
  }
  if (what === undefined || !WHAT.has(what as RewindWhat) || rest.length > 0) throw new Error(REWIND_USAGE);
  const done = await session.edits.rewind(ref, what as RewindWhat);
  const lines = [`Rewound to before turn ${done.target.index} (“${preview(done.target.text, 60)}”).`];
  if (what !== 'conversation') {
    if (done.files.length === 0) lines.push('Code: no file was changed by Edit or Write since then.');
    for (const f of done.files)
      lines.push(f.action === 'failed' ? `  ✗ ${f.path}: ${f.error ?? 'failed'}` : `  ${f.action === 'removed' ? '−' : '↺'} ${f.path} ${f.action}`);
  }
  if (what !== 'code') lines.push(`Conversation: ${done.archived} message${done.archived === 1 ? '' : 's'} archived (still searchable with /history).`);
  if (what !== 'conversation') lines.push(BASH_CAVEAT);
  return { kind: 'text', text: lines.join('\n') };
}

export function preview(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Plain-text list of turns, for print mode. */
export function formatRewindTargets(targets: readonly RewindTargetView[]): string {
  const lines = targets.map((t) => {
    const files =
      t.files.length > 0
        ? ` — ${t.files.length} file${t.files.length === 1 ? '' : 's'} changed since: ${t.files.slice(0, 5).join(', ')}${t.files.length > 5 ? ', …' : ''}`
        : '';
    return (
      `${String(t.index).padStart(3)}. ${new Date(t.createdAt).toISOString().slice(0, 16).replace('T', ' ')} ` +
      `${preview(t.text, 70)}${t.inConversation ? '' : ` (${t.gone ?? 'compacted'}: code only)`}${files}`
    );
  });
  return [...lines, '', REWIND_USAGE, BASH_CAVEAT].join('\n');
}
