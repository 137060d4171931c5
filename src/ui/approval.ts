// The permission prompt's state and keys, apart from its rendering.
import type { Key } from 'ink';
import type { ApprovalDecision, ApprovalRequest } from '../tools/permissions.js';

export interface PendingApproval {
  request: ApprovalRequest;
  respond: (d: ApprovalDecision) => void;
}

export interface ApprovalView extends PendingApproval {
  /** Index into approvalOptions(request). */
  selected: number;
  /** The note sent with a denial, typed while "deny" is selected. */
  note: string;
  /** The command was too long for the prompt box and was printed in full into the transcript. */
  detailAbove: boolean;
}

/** Commands longer than this (lines) are printed in full into the transcript and previewed in the prompt. */
export const LONG_COMMAND_LINES = 12;

export const isLongCommand = (summary: string): boolean => summary.split('\n').length > LONG_COMMAND_LINES;

export interface ApprovalOption {
  kind: 'once' | 'session' | 'deny';
  label: string;
}

export function approvalOptions(req: ApprovalRequest): ApprovalOption[] {
  const session = req.suggestedPrefix
    ? `Allow commands starting with \`${req.suggestedPrefix}\` for this session`
    : `Allow ${req.toolName} for this session`;
  return [
    { kind: 'once', label: 'Allow once' },
    { kind: 'session', label: session },
    { kind: 'deny', label: 'Deny' },
  ];
}

export const newApprovalView = (p: PendingApproval): ApprovalView => ({ ...p, selected: 0, note: '', detailAbove: isLongCommand(p.request.summary) });

function decisionFor(view: ApprovalView, kind: ApprovalOption['kind']): ApprovalDecision {
  if (kind === 'once') return { kind: 'allow_once' };
  if (kind === 'session') {
    const prefix = view.request.suggestedPrefix;
    return prefix ? { kind: 'allow_prefix', prefix } : { kind: 'allow_tool' };
  }
  const note = view.note.trim();
  return note ? { kind: 'deny', note } : { kind: 'deny' };
}

export interface ApprovalKeyResult {
  view: ApprovalView;
  decision?: ApprovalDecision;
}

/**
 * Up/Down move, Enter takes the selected option (the first, "allow once", by default), 1–3 take
 * an option directly, Esc denies. With "deny" selected, typing writes the note to the model.
 */
export function approvalKey(view: ApprovalView, input: string, key: Key): ApprovalKeyResult {
  const options = approvalOptions(view.request);
  const current = options[view.selected];
  const onDeny = current?.kind === 'deny';
  if (key.return) return { view, decision: decisionFor(view, current?.kind ?? 'once') };
  if (key.escape) return { view, decision: decisionFor(view, 'deny') };
  if (key.upArrow) return { view: { ...view, selected: (view.selected + options.length - 1) % options.length } };
  if (key.downArrow || key.tab) return { view: { ...view, selected: (view.selected + 1) % options.length } };
  if (onDeny) {
    if (key.backspace || key.delete) return { view: { ...view, note: [...view.note].slice(0, -1).join('') } };
    if (key.ctrl && input === 'u') return { view: { ...view, note: '' } };
    if (!key.ctrl && !key.meta && input !== '') {
      const typed = input.replace(/[\r\n]+/g, ' ').replace(/[\x00-\x1f\x7f]/g, '');
      return { view: { ...view, note: view.note + typed } };
    }
    return { view };
  }
  if (!key.ctrl && !key.meta && /^[1-9]$/.test(input)) {
    const n = Number(input) - 1;
    const opt = options[n];
    if (!opt) return { view };
    // Choosing "deny" by number selects it so that a note can still be typed.
    if (opt.kind === 'deny') return { view: { ...view, selected: n } };
    return { view: { ...view, selected: n }, decision: decisionFor(view, opt.kind) };
  }
  return { view };
}
