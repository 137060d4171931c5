// The permission prompt's state and keys, apart from its rendering.
import type { Key } from 'ink';
import type { ApprovalDecision, ApprovalRequest } from '../tools/permissions.js';
import { numberedLines, type NumberedDiffLine } from '../tools/fileDiff.js';

export interface PendingApproval {
  request: ApprovalRequest;
  respond: (d: ApprovalDecision) => void;
}

export interface ApprovalView extends PendingApproval {
  /** Index into approvalOptions(request). */
  selected: number;
  /** The note sent with a denial, typed while a "deny" option is selected. */
  note: string;
  /**
   * Text typed while no deny option was selected: not an answer. It is shown as ignored, and the
   * next Enter only dismisses it (the person may have meant it for the prompt).
   */
  stray: string;
  /** The command was too long for the prompt box and was printed in full into the transcript. */
  detailAbove: boolean;
  /** First diff row shown (the diff scrolls when it is taller than the screen allows). */
  scroll: number;
  /** The diff as numbered rows (computed once). */
  diffRows: NumberedDiffLine[];
  /** A plan the person changed in their editor: the answer carries it (request.plan holds it). */
  edited?: boolean;
  /** What came of the last trip to the editor ("could not start …"), shown in the box. */
  editorNote?: string;
}

/** Commands longer than this (lines) are printed in full into the transcript and previewed in the prompt. */
export const LONG_COMMAND_LINES = 12;

export const isLongCommand = (summary: string): boolean => summary.split('\n').length > LONG_COMMAND_LINES;

export interface ApprovalOption {
  /** `skip`: a project's code is not run (a denial without a note to the model: there is none). `edit`: a plan opened in $EDITOR, then asked again. */
  kind: 'once' | 'session' | 'accept_edits' | 'deny' | 'stop' | 'skip' | 'edit';
  label: string;
}

/** "them" for a project's hooks, "it" for one of its MCP servers. */
export const projectCodePronoun = (req: ApprovalRequest): string => (req.projectCode?.what === 'hooks' ? 'them' : 'it');

/**
 * Allow once; a session-wide allowance where one means something (a prefix for a simple
 * command, "accept edits" for an edit inside the working directory, the tool otherwise);
 * deny (the model carries on, told why); deny and stop the turn.
 */
export function approvalOptions(req: ApprovalRequest): ApprovalOption[] {
  if (req.projectCode) {
    const it = projectCodePronoun(req);
    return [
      { kind: 'session', label: `Run ${it}, and remember for this project (asked again if ${it === 'it' ? 'its entry changes' : 'they change'})` },
      { kind: 'once', label: `Run ${it} for this session only` },
      { kind: 'skip', label: `Do not run ${it}` },
    ];
  }
  if (req.plan !== undefined)
    return [
      { kind: 'once', label: 'Approve the plan; edits and commands still ask' },
      { kind: 'accept_edits', label: 'Approve the plan, and accept edits for the rest of the session' },
      { kind: 'deny', label: 'Keep planning, and tell the model what to change' },
      { kind: 'edit', label: 'Open the plan in your editor first ($VISUAL, $EDITOR or vi), then choose' },
    ];
  const options: ApprovalOption[] = [{ kind: 'once', label: req.diff ? 'Apply once' : 'Allow once' }];
  if (req.diff) {
    if (!req.outsideCwd) options.push({ kind: 'accept_edits', label: 'Apply, and accept edits for the rest of the session' });
  } else if (req.suggestedPrefix) {
    options.push({ kind: 'session', label: `Allow commands starting with \`${req.suggestedPrefix}\` for this session` });
  } else if (!req.onceOnly) {
    options.push({
      kind: 'session',
      label: req.sessionScope ? `Allow ${req.toolName} in ${req.sessionScope} for this session` : `Allow ${req.toolName} for this session`,
    });
  }
  options.push({ kind: 'deny', label: 'Deny, and tell the model why' });
  options.push({ kind: 'stop', label: 'Deny, and stop the turn' });
  return options;
}

export const newApprovalView = (p: PendingApproval): ApprovalView => ({
  ...p,
  selected: 0,
  note: '',
  stray: '',
  detailAbove: !p.request.diff && isLongCommand(p.request.summary),
  scroll: 0,
  diffRows: p.request.diff ? numberedLines(p.request.diff) : [],
});

function decisionFor(view: ApprovalView, kind: Exclude<ApprovalOption['kind'], 'edit'>): ApprovalDecision {
  // a plan the person edited goes with their answer
  const plan = view.edited && view.request.plan !== undefined ? { plan: view.request.plan } : {};
  if (kind === 'once') return { kind: 'allow_once', ...plan };
  if (kind === 'skip') return { kind: 'deny' };
  if (kind === 'accept_edits') return { kind: 'accept_edits', ...plan };
  if (kind === 'session') {
    const prefix = view.request.suggestedPrefix;
    return prefix ? { kind: 'allow_prefix', prefix } : { kind: 'allow_tool' };
  }
  const note = view.note.trim();
  return { kind: 'deny', ...(note ? { note } : {}), ...(kind === 'stop' ? { stop: true } : {}), ...plan };
}

export interface ApprovalKeyResult {
  view: ApprovalView;
  decision?: ApprovalDecision;
  /** The plan is to be opened in the person's editor (the app hands the terminal over), then asked again. */
  edit?: true;
}

/** The approval asked again with the plan as the person edited it (`text`), or with what kept the editor from it (`note`). */
export function afterEditing(view: ApprovalView, outcome: { text: string } | { note: string }): ApprovalView {
  if ('note' in outcome) return { ...view, editorNote: outcome.note };
  const text = outcome.text.trim();
  if (text === '') return { ...view, editorNote: 'The edited plan was empty: the plan is as it was.' };
  if (text === (view.request.plan ?? '').trim()) return { ...view, editorNote: 'The plan is unchanged.' };
  const request = { ...view.request, plan: text, summary: text };
  return { ...view, request, edited: true, selected: 0, editorNote: 'Your edited plan: approve it, or send it back.' };
}

/**
 * Up/Down and 1–4 select, Enter takes the selected option (the first, "allow once", by default),
 * Esc denies and stops the turn. With a "deny" option selected, typing
 * writes the note to the model. PgUp/PgDn (or Shift+↑↓) scroll a long diff; `diffRows` is how
 * many rows of it the screen shows, `diffLines` how many screen lines the whole diff takes (its
 * long lines wrapped; default: one each). Home/End go to its first and last lines.
 */
export function approvalKey(view: ApprovalView, input: string, key: Key, diffRows = 20, diffLines = view.diffRows.length): ApprovalKeyResult {
  const options = approvalOptions(view.request);
  const current = options[view.selected];
  const onDeny = current?.kind === 'deny' || current?.kind === 'stop';
  if (key.return) {
    if (view.stray !== '') return { view: { ...view, stray: '' } };
    if (current?.kind === 'edit') return { view, edit: true };
    return { view, decision: decisionFor(view, current?.kind ?? 'once') };
  }
  if (key.escape) return { view, decision: decisionFor(view, view.request.projectCode ? 'skip' : 'stop') };
  const maxScroll = Math.max(0, diffLines - diffRows);
  const scrollBy = (n: number): ApprovalKeyResult => ({ view: { ...view, scroll: Math.min(maxScroll, Math.max(0, view.scroll + n)) } });
  if (key.home) return { view: { ...view, scroll: 0 } };
  if (key.end) return { view: { ...view, scroll: maxScroll } };
  if (key.pageDown || (key.shift && key.downArrow)) return scrollBy(key.pageDown ? diffRows - 1 : 1);
  if (key.pageUp || (key.shift && key.upArrow)) return scrollBy(key.pageUp ? -(diffRows - 1) : -1);
  if (key.upArrow) return { view: { ...view, selected: (view.selected + options.length - 1) % options.length } };
  if (key.downArrow || key.tab) return { view: { ...view, selected: (view.selected + 1) % options.length } };
  const digit = /^[1-9]$/.test(input);
  if (onDeny) {
    if (key.backspace || key.delete) return { view: { ...view, note: [...view.note].slice(0, -1).join('') } };
    if (key.ctrl && input === 'u') return { view: { ...view, note: '' } };
    // a digit picks another option until a note is begun; after that it is part of the note
    if (!key.ctrl && !key.meta && input !== '' && !(digit && view.note === '')) {
      const typed = input.replace(/[\r\n]+/g, ' ').replace(/[\x00-\x1f\x7f]/g, '');
      return { view: { ...view, note: view.note + typed } };
    }
  }
  if (!key.ctrl && !key.meta && !digit && input !== '' && !/^\[[\d;?]*[~A-Za-z]$/.test(input)) {
    const typed = input.replace(/[\r\n]+/g, ' ').replace(/[\x00-\x1f\x7f]/g, '');
    if (typed !== '') return { view: { ...view, stray: view.stray + typed } };
  }
  // A digit only selects (as /rewind's picker does): Enter decides. A digit that decided at once
  // let the habitual Enter after it answer the next question unseen.
  if (!key.ctrl && !key.meta && digit) {
    const n = Number(input) - 1;
    return { view: options[n] ? { ...view, selected: n } : view };
  }
  return { view };
}
