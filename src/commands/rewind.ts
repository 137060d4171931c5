// /rewind: list the person's earlier turns, or go back to one (code, conversation or both).
import type { Session } from '../session/session.js';
import { OutsideChangesError, type RestoredFile, type RewindResult, type RewindWhat } from '../session/rewind.js';
import type { CommandOutput, RewindTargetView } from '../protocol/views.js';
import { fmtInt } from '../tools/format.js';

/** Said when the project has no checkpoints (checkpoints.enabled is false, or a sub-agent's session). */
export const BASH_CAVEAT = 'Only changes made by Edit and Write are restored: what Bash commands did (files they wrote, installs, commits) cannot be rewound.';
/** Said when it has: what a code rewind covers, and what it never does. */
export const TREE_NOTE =
  "Bash's changes included: a code rewind puts the project's files back from the checkpoint taken before the turn (ignored files: only what Edit and Write changed); your repository's .git is never touched.";
export const REWIND_USAGE =
  'usage: /rewind <turn number> code|conversation|both [--force] (/rewind alone lists the turns; /rewind undo [--force] takes back the last rewind)';

const WHAT = new Set<RewindWhat>(['code', 'conversation', 'both']);

/**
 * "/rewind" → the list (the app opens a picker); "/rewind 3 code" → does it; "--force" (its last
 * word) overwrites files changed outside since the last turn. Without it such files refuse the rewind: `ask` (the
 * interactive app) turns the refusal into the picker's question, elsewhere it is the error.
 */
export async function rewindCommand(session: Session, args: string, ask = false): Promise<CommandOutput> {
  try {
    return await rewindOrUndo(session, args);
  } catch (e) {
    if (!ask || !(e instanceof OutsideChangesError)) throw e;
    return { kind: 'rewind', targets: session.edits.rewindTargets(), overwrite: { files: e.files, command: `/rewind ${args.trim()}` } };
  }
}

async function rewindOrUndo(session: Session, args: string): Promise<CommandOutput> {
  const all = args.trim().split(/\s+/).filter(Boolean);
  // a flag of /rewind's: its last word, never a word found elsewhere in what was typed
  const force = all.at(-1) === '--force';
  const words = force ? all.slice(0, -1) : all;
  if (words.some((w) => w.startsWith('-'))) throw new Error(REWIND_USAGE);
  const [ref, what, ...rest] = words;
  if (ref?.toLowerCase() === 'undo' && what === undefined) {
    const done = await session.edits.undoRewind(force);
    if (!done.ok) return { kind: 'text', text: done.message };
    const n = done.conversation?.restored ?? 0;
    const conversation = done.conversation
      ? `: ${n} message${n === 1 ? '' : 's'} back in the conversation, the context is now ${fmtInt(done.conversation.tokens)} tokens.`
      : '.';
    const lines = [`Undid the last rewind${conversation}`];
    if (done.files)
      lines.push(
        done.files.length === 0 ? 'Code: no file differed from just before the rewind.' : 'Code: the files are back as they were just before the rewind:',
        ...fileLines(done.files),
      );
    else
      lines[0] += session.edits.keepsCheckpoints()
        ? ' Files stay as they are now (that rewind did not change code).'
        : ' Files stay as they are now (without checkpoints, a code rewind is not taken back).';
    return { kind: 'text', text: lines.join('\n') };
  }
  if (ref === undefined) {
    const targets = session.edits.rewindTargets();
    if (targets.length === 0) return { kind: 'text', text: 'Nothing to rewind yet: no earlier turn in this session.' };
    return { kind: 'rewind', targets };
  }
  if (what === undefined || !WHAT.has(what as RewindWhat) || rest.length > 0) throw new Error(REWIND_USAGE);
  const done = await session.edits.rewind(ref, what as RewindWhat, force);
  const lines = [`Rewound to before turn ${done.target.index} (“${preview(done.target.text, 60)}”).`];
  if (what !== 'conversation') lines.push(...codeLines(done));
  if (what !== 'code') lines.push(`Conversation: ${done.archived} message${done.archived === 1 ? '' : 's'} archived (still searchable with /history).`);
  if (what !== 'conversation') lines.push(caveat(done.tree));
  return { kind: 'text', text: lines.join('\n') };
}

function codeLines(done: RewindResult): string[] {
  const none = done.tree?.restored ? 'Code: no file differed from the checkpoint before that turn.' : 'Code: no file was changed by Edit or Write since then.';
  return done.files.length === 0 ? [none] : fileLines(done.files);
}

function fileLines(files: readonly RestoredFile[]): string[] {
  return files.map((f) => (f.action === 'failed' ? `  ✗ ${f.path}: ${f.error ?? 'failed'}` : `  ${f.action === 'removed' ? '−' : '↺'} ${f.path} ${f.action}`));
}

/** What a code rewind could not cover: nothing more than ignored files with a checkpoint; everything Bash did without one. */
function caveat(tree: RewindResult['tree']): string {
  if (!tree) return BASH_CAVEAT;
  if (tree.restored) return TREE_NOTE;
  return `That turn has no checkpoint of the project (${tree.missing}): only Edit and Write's changes were restored, not what Bash commands did.`;
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
      `${preview(t.text, 70)}${t.inConversation ? '' : ` (${t.gone ?? 'compacted'}: code only)`}${files}` +
      (t.checkpoint && !t.checkpoint.ok ? ` — no checkpoint: ${t.checkpoint.missing}` : '')
    );
  });
  const kept = targets.some((t) => t.checkpoint !== undefined);
  return [...lines, '', REWIND_USAGE, kept ? TREE_NOTE : BASH_CAVEAT].join('\n');
}
