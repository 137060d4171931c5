// /uncompact: undo a compaction by appending a revert record (history/reduce.ts). The messages
// it archived come back into view when they fit under the auto-compaction threshold (else the
// next request would compact them away again); when they do not, the largest newest part that
// fits is offered instead.
import { isToolResultMessage, newId, type Message } from '../llm/messages.js';
import { historyProblems } from '../llm/validate.js';
import type { CompactionInEffect, RevertRequest, RewindInEffect, Store } from '../store/index.js';
import { REVERT_ID_PREFIX } from './recordIds.js';
import { fmtInt } from '../tools/format.js';

export interface UncompactTarget {
  /** 1-based, oldest first. */
  index: number;
  id: string;
  trigger: string;
  createdAt: number;
  /** Messages it keeps out of view. */
  hidden: number;
  tokensBefore: number;
  tokensAfter: number;
}

export interface UncompactDeps {
  store: Store;
  sessionId: string;
  /** The visible history now. */
  current: readonly Message[];
  /** Tokens the next request would carry with this history. */
  tokensWith: (history: readonly Message[]) => Promise<number>;
  limits: { auto: number; contextWindow: number };
}

export type UncompactPlan =
  | { ok: true; req: RevertRequest; target: UncompactTarget; restored: number; tokens: number; alsoUndone: number }
  | { ok: false; message: string };

export function uncompactTargets(inEffect: readonly CompactionInEffect[]): UncompactTarget[] {
  return inEffect.map((c, i) => ({
    index: i + 1,
    id: c.record.id,
    trigger: c.record.trigger,
    createdAt: c.record.createdAt,
    hidden: c.hidden,
    tokensBefore: c.record.tokensBefore,
    tokensAfter: c.record.tokensAfter,
  }));
}

/** A target by its number or its id (a unique prefix will do). */
export function findUncompactTarget(targets: readonly UncompactTarget[], ref: string | undefined): UncompactTarget | undefined {
  if (ref === undefined) return targets.at(-1);
  if (/^\d+$/.test(ref)) return targets[Number(ref) - 1];
  const matches = targets.filter((t) => t.id.startsWith(ref));
  return matches.length === 1 ? matches[0] : undefined;
}

/** The plan for `/uncompact [ref] [newest n]`: the last compaction when no ref is given. */
export async function planFor(
  deps: UncompactDeps,
  targets: readonly UncompactTarget[],
  ref: string | undefined,
  newest: number | undefined,
): Promise<UncompactPlan> {
  if (targets.length === 0)
    return { ok: false, message: 'Nothing to undo: no compaction of this session is in effect (compactions made before this version cannot be undone).' };
  const target = findUncompactTarget(targets, ref);
  if (!target) throw new Error(`no compaction "${ref}" to undo: /uncompact list shows them`);
  return planUncompact(deps, targets, target, newest);
}

const isTurnStart = (m: Message): boolean => m.role === 'user' && m.kind === 'normal' && !isToolResultMessage(m);

/**
 * What undoing `target` would do: the whole revert when it fits; with `newest`, only the
 * newest `newest` archived messages (from a turn start on, so the history stays valid).
 */
export async function planUncompact(
  deps: UncompactDeps,
  targets: readonly UncompactTarget[],
  target: UncompactTarget,
  newest?: number,
): Promise<UncompactPlan> {
  const { auto, contextWindow } = deps.limits;
  const later = targets.filter((t) => t.index > target.index).length;
  // what the target archived is read only to offer or take a part of it
  const archived = (): Message[] => deps.store.loadArchivedBy(deps.sessionId, target.id);
  if (newest === undefined) {
    const req: RevertRequest = { id: newId(REVERT_ID_PREFIX), target: target.id, createdAt: Date.now() };
    const after = deps.store.previewRevert(deps.sessionId, req).map((e) => e.message);
    // a repair made since (a "no reply" marker between two prompts the compaction had put side by side) may not fit the history it brings back
    const problems = historyProblems(after);
    if (problems.length > 0) {
      return {
        ok: false,
        message:
          `Undoing compaction ${target.index} (${target.id}) would leave a history the provider refuses (${problems[0]}); nothing was changed. ` +
          `/uncompact ${target.index} newest <count> brings back part of it; /history and Recall find all of it.`,
      };
    }
    const tokens = await deps.tokensWith(after);
    if (tokens < auto) return { ok: true, req, target, restored: after.length - deps.current.length, tokens, alsoUndone: later };
    const hidden = archived();
    const part = await largestPart(deps, hidden);
    const lines = [
      `Undoing compaction ${target.index} (${target.id}) would bring the context to ${fmtInt(tokens)} tokens, ` +
        `${fmtInt(tokens - auto)} more than the auto-compaction threshold (${fmtInt(auto)} of a ${fmtInt(contextWindow)}-token window), ` +
        `so it would be compacted again at once. Nothing was changed.`,
    ];
    lines.push(
      part
        ? `/uncompact ${target.index} newest ${part.count} brings back the newest ${part.count} of its ${hidden.length} archived messages (${fmtInt(part.tokens)} tokens in all).`
        : 'Not even its newest turn fits; /history and Recall still find everything it archived.',
    );
    return { ok: false, message: lines.join('\n') };
  }
  const restore = validSuffix(archived(), newest, deps.current);
  if (!restore)
    return { ok: false, message: `No valid part of the newest ${newest} archived messages of compaction ${target.index} starts a turn; give a larger number.` };
  const tokens = await deps.tokensWith([...restore, ...deps.current]);
  if (tokens >= auto) {
    return {
      ok: false,
      message:
        `The newest ${restore.length} archived messages would bring the context to ${fmtInt(tokens)} tokens, over the auto-compaction threshold (${fmtInt(auto)}); ` +
        `give a smaller number. Nothing was changed.`,
    };
  }
  const req: RevertRequest = { id: newId(REVERT_ID_PREFIX), target: target.id, restore: restore.map((m) => m.id), createdAt: Date.now() };
  return { ok: true, req, target, restored: restore.length, tokens, alsoUndone: 0 };
}

/** The newest archived messages, at most `count` (fewer to start at a turn), that keep the history valid before `current`. */
function validSuffix(hidden: readonly Message[], count: number, current: readonly Message[]): Message[] | undefined {
  for (let start = Math.max(0, hidden.length - count); start < hidden.length; start++) {
    const part = hidden.slice(start);
    if (isTurnStart(part[0]!) && historyProblems([...part, ...current]).length === 0) return part;
  }
  return undefined;
}

/** The largest newest part of the archived messages that fits under the threshold (binary search over turn starts). */
async function largestPart(deps: UncompactDeps, hidden: readonly Message[]): Promise<{ count: number; tokens: number } | undefined> {
  const starts = hidden.map((m, i) => (isTurnStart(m) && historyProblems([...hidden.slice(i), ...deps.current]).length === 0 ? i : -1)).filter((i) => i >= 0);
  let lo = 0;
  let hi = starts.length - 1;
  let best: { count: number; tokens: number } | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const part = hidden.slice(starts[mid]!);
    const tokens = await deps.tokensWith([...part, ...deps.current]);
    if (tokens < deps.limits.auto) {
      best = { count: part.length, tokens };
      hi = mid - 1;
    } else lo = mid + 1;
  }
  return best;
}

export type RewindUndoPlan = { ok: true; req: RevertRequest; restored: number; tokens: number } | { ok: false; message: string };

/** `/rewind undo`: the last conversation rewind undone (its messages back after what came before it), when that fits. */
export async function planRewindUndo(deps: UncompactDeps, rewinds: readonly RewindInEffect[]): Promise<RewindUndoPlan> {
  const last = rewinds.at(-1);
  if (!last) return { ok: false, message: 'Nothing to undo: no conversation rewind of this session is in effect.' };
  const req: RevertRequest = { id: newId(REVERT_ID_PREFIX), target: last.id, createdAt: Date.now() };
  const after = deps.store.previewRevert(deps.sessionId, req).map((e) => e.message);
  const problems = historyProblems(after);
  if (problems.length > 0)
    return { ok: false, message: `Undoing the last rewind would leave a history the provider refuses (${problems[0]}); nothing was changed.` };
  const tokens = await deps.tokensWith(after);
  if (tokens >= deps.limits.auto) {
    return {
      ok: false,
      message:
        `Undoing the last rewind would bring the context to ${fmtInt(tokens)} tokens, over the auto-compaction threshold (${fmtInt(deps.limits.auto)}). ` +
        `Nothing was changed; /history still finds what it took out.`,
    };
  }
  return { ok: true, req, restored: after.length - deps.current.length, tokens };
}
