// Finished transcript items as lines of styled text for a terminal of a given width. The
// transcript prints each item once; drawing it as text (rather than as nested Ink boxes) is what
// lets a resumed session's newest screenful reach the terminal as fast as a new session's prompt.
// The look is pinned byte for byte by test/ui/item-look.test.tsx.
import { reportLine } from '../compaction/reportText.js';
import type { CompactionRecord } from '../history/compaction.js';
import { numberedLines, parseUnified, type FileDiff, type NumberedDiffLine } from '../tools/fileDiff.js';
import { formatDuration, formatTokens } from './format.js';
import { renderMarkdownWhenLoaded } from './markdown-lazy.js';
import { oneLine, sanitize } from './sanitize.js';
import { besideMarker, block, fit, indented, paint, widest, type Style } from './text-layout.js';
import { commandLines } from './command-text.js';
import { searchLines } from './search-text.js';
import type { Theme } from './theme.js';
import { cutForModel, spillReceiptOf } from './tool-progress.js';
import { SHELL_ROW_NAME } from '../protocol/views.js';
import type { ToolItem, ToolStatus, TranscriptItem } from './transcript.js';
import { previewOf } from './transcript.js';
import { fmtInt, plural } from '../tools/format.js';

const USER_MAX_LINES = 30;
const CHECKPOINT_PREVIEW_LINES = 6;
/** Diff rows an applied edit shows in the transcript; Ctrl-O shows the rest. */
const EDIT_PREVIEW_ROWS = 8;

const ICON: Record<ToolStatus, string> = { running: '…', done: '✓', error: '✗', denied: '⊘', interrupted: '■' };

function statusColor(status: ToolStatus, theme: Theme): string | undefined {
  switch (status) {
    case 'running':
      return theme.accent;
    case 'done':
      return theme.success;
    case 'error':
      return theme.error;
    case 'denied':
    case 'interrupted':
      return theme.warning;
  }
}

function clip(text: string, max: number): { shown: string; hidden: number } {
  const lines = text.split('\n');
  if (lines.length <= max) return { shown: text, hidden: 0 };
  return { shown: lines.slice(0, max).join('\n'), hidden: lines.length - max };
}

export interface ToolHeaderParts {
  name: string;
  summary: string;
  status: ToolStatus;
  /** Replaces the icon (the spinner frame of a running tool). */
  icon?: string | undefined;
  /** Right-hand side: duration, or elapsed time while running. */
  right?: string | undefined;
}

/** One line: icon, tool name, key argument (cut to fit), then status word and duration, which are never cut. */
export function toolHeaderLine({ name, summary, status, icon, right }: ToolHeaderParts, columns: number, theme: Theme): string {
  const color = statusColor(status, theme);
  const word = status === 'done' || status === 'running' ? '' : status;
  const tail = [word, right].filter(Boolean).join(' · ');
  const arg = oneLine(summary);
  const left = `${paint(icon ?? ICON[status], { color })} ${paint(sanitize(name), { bold: true, color: theme.tool })}${arg ? ` ${arg}` : ''}`;
  const after = tail ? ` · ${tail}` : '';
  const cut = fit(left, Math.max(0, columns - widest(after)), 'truncate')[0] ?? '';
  return cut + (after ? paint(after, status === 'done' ? { color: theme.muted, dim: true } : { color }) : '');
}

/** The diff an Edit/Write result carries, with the counts from its first line ("Edited a.ts (+2 −1)…") when the diff was cut. */
function editDiffOf(item: Pick<ToolItem, 'status' | 'output' | 'clearedTokens'>): FileDiff | undefined {
  if (item.status !== 'done' || item.clearedTokens !== undefined) return undefined;
  const diff = parseUnified(item.output);
  if (!diff) return undefined;
  const m = /\(\+(\d+) −(\d+)\)/.exec(item.output.split('\n', 1)[0] ?? '');
  return m ? { ...diff, added: Number(m[1]), removed: Number(m[2]) } : diff;
}

/** One row of a numbered diff: its text (parts styled inside) and the style of the whole row. */
export function diffRowSpec(r: NumberedDiffLine, numberWidth: number, theme: Theme): { text: string; style: Style } {
  if (r.kind === 'hunk') return { text: r.text, style: { color: theme.info, dim: true } };
  if (r.kind === 'note') return { text: `  \\ ${r.text}`, style: { color: theme.muted } };
  const num = (n: number | undefined): string => (n === undefined ? ' '.repeat(numberWidth) : String(n).padStart(numberWidth));
  const mark = r.kind === 'add' ? '+' : r.kind === 'remove' ? '-' : ' ';
  const color = r.kind === 'add' ? theme.success : r.kind === 'remove' ? theme.error : undefined;
  const body = paint(`${mark} ${sanitize(r.text.replace(/\t/g, '  '))}`, { color, dim: r.kind === 'context' });
  return { text: `${paint(`${num(r.oldNo)} ${num(r.newNo)} `, { color: theme.muted })}${body}`, style: {} };
}

/** Columns the line numbers of these diff rows take. */
export const diffNumberWidth = (rows: readonly NumberedDiffLine[]): number => String(rows.reduce((m, r) => Math.max(m, r.oldNo ?? 0, r.newNo ?? 0), 0)).length;

/** Rows of a diff, each cut to the width (or wrapped under its text, the line numbers left clear). */
function diffLines(
  rows: readonly NumberedDiffLine[],
  width: number,
  theme: Theme,
  from = 0,
  max = rows.length,
  mode: 'wrap' | 'truncate' = 'truncate',
): string[] {
  const numberWidth = diffNumberWidth(rows);
  return rows.slice(from, from + max).flatMap((r) => {
    if (mode === 'wrap') return wrappedDiffRow(r, numberWidth, width, theme);
    const { text, style } = diffRowSpec(r, numberWidth, theme);
    return block(text, width, style, 'truncate');
  });
}

/** A diff row wrapped to the width: the continuation lines start under the row's text. */
function wrappedDiffRow(r: NumberedDiffLine, numberWidth: number, width: number, theme: Theme): string[] {
  const { text, style } = diffRowSpec(r, numberWidth, theme);
  if (r.kind === 'hunk' || r.kind === 'note' || widest(text) <= width) return block(text, width, style);
  const indent = numberWidth * 2 + 4;
  const color = r.kind === 'add' ? theme.success : r.kind === 'remove' ? theme.error : undefined;
  const body = fit(sanitize(r.text.replace(/\t/g, '  ')), Math.max(1, width - indent));
  const head = diffRowSpec({ ...r, text: body[0] ?? '' }, numberWidth, theme).text;
  return [head, ...body.slice(1).map((l) => ' '.repeat(indent) + paint(l, { color, dim: r.kind === 'context' }))];
}

/** The diff's rows as screen lines `width` wide, long lines wrapped (the approval prompt shows all of what is approved). */
export function wrappedDiffLines(rows: readonly NumberedDiffLine[], width: number, theme: Theme): string[] {
  return diffLines(rows, width, theme, 0, rows.length, 'wrap');
}

function userLines(item: Extract<TranscriptItem, { kind: 'user' }>, columns: number, theme: Theme): string[] {
  const width = columns - 2;
  const { shown, hidden } = clip(sanitize(item.text).replace(/\s+$/, ''), USER_MAX_LINES);
  const column = [
    ...block(shown, width, { color: theme.user }),
    ...(hidden > 0 ? block(`… ${hidden} more lines`, width, { color: theme.muted }) : []),
    ...(item.attachments ?? []).flatMap((a) => block(`⎿ attached @${oneLine(a)}`, width, { color: theme.muted }, 'truncate')),
  ];
  return besideMarker(paint('❯ ', { color: theme.user, bold: true }), column);
}

/** A reply (or, `continued`, a later block of one) as Markdown; an interrupted one says so. Null: nothing to show. */
function assistantLines(text: string, interrupted: boolean, continued: boolean, columns: number, theme: Theme): string[] | null {
  const rendered = renderMarkdownWhenLoaded(text, { width: columns - 3, color: theme.color });
  if (continued && rendered === '' && !interrupted) return null;
  const body = rendered !== '' || !continued ? block(rendered === '' ? ' ' : rendered, columns - 2) : [];
  const lines = besideMarker(paint(continued ? '  ' : '● ', { color: theme.accent }), body);
  if (interrupted) lines.push(...indented(block('■ interrupted', columns - 2, { color: theme.warning }), 2));
  return lines;
}

function toolLines(item: ToolItem, columns: number, theme: Theme): string[] {
  const right = item.durationMs !== undefined ? formatDuration(item.durationMs) : undefined;
  const header = toolHeaderLine({ name: item.name, summary: item.summary, status: item.status, right }, columns, theme);
  const diff = editDiffOf(item);
  if (diff) return [header, ...indented(editLines(diff, columns - 2, theme), 2)];
  if (item.name === SHELL_ROW_NAME && item.clearedTokens === undefined && item.output.trim() !== '') return [header, ...shellOutputLines(item, columns, theme)];
  const spill = item.clearedTokens === undefined ? spillReceiptOf(item.output) : undefined;
  // a spilled row's first line is the output's own, not the header written for the model (the receipt says it shorter)
  const preview = previewOf(sanitize(spill ? item.output.slice(item.output.indexOf('\n') + 1) : item.output));
  let line = preview.line;
  if (item.clearedTokens !== undefined) line = `output cleared by compaction (${formatTokens(item.clearedTokens)} tokens archived)`;
  else if (line === '') line = item.status === 'interrupted' ? 'stopped before it finished' : '(no output)';
  const more = item.clearedTokens === undefined && preview.more > 0 ? ` (+${preview.more} ${preview.more === 1 ? 'line' : 'lines'})` : '';
  const moreWidth = widest(more);
  const shown = block(line, Math.max(0, columns - 4 - moreWidth), item.status === 'error' ? { color: theme.error } : { dim: true }, 'truncate')[0] ?? '';
  const lines = [header, `  ${paint('⎿ ', { color: theme.muted })}${shown}${more ? paint(more, { color: theme.muted, dim: true }) : ''}`];
  const cut = item.clearedTokens === undefined && !spill ? cutForModel(item.output) : undefined;
  if (spill) {
    const note = `${spill} · spilled, model saw head+tail · ctrl+o shows all`;
    lines.push(...indented(block(note, columns - 4, { color: theme.muted }, 'truncate'), 4));
  }
  if (cut) {
    const note = `model got a cut copy (${cut.lines} lines left out) · ctrl+o shows ${item.fullOutput ? 'all' : 'what it got'}`;
    lines.push(...indented(block(note, columns - 4, { color: theme.warning }, 'truncate'), 4));
  }
  return lines;
}

/** A `!command`'s output lines shown under its row: about a screenful of a small terminal. */
export const SHELL_SHOWN_LINES = 18;

/** What the person's own command printed: up to SHELL_SHOWN_LINES lines, then how to see the rest. */
function shellOutputLines(item: ToolItem, columns: number, theme: Theme): string[] {
  const all = sanitize(item.output).replace(/\s+$/, '').split('\n');
  const hidden = all.length > SHELL_SHOWN_LINES ? all.length - (SHELL_SHOWN_LINES - 1) : 0;
  const shown = hidden > 0 ? all.slice(0, SHELL_SHOWN_LINES - 1) : all;
  const style: Style = item.status === 'error' ? { color: theme.error } : {};
  const body = shown.flatMap((l) => block(l === '' ? ' ' : l, columns - 4, style, 'truncate'));
  if (hidden > 0) body.push(...block(`… +${hidden} ${hidden === 1 ? 'line' : 'lines'} (ctrl+o to expand)`, columns - 4, { color: theme.muted }));
  return besideMarker(`  ${paint('⎿ ', { color: theme.muted })}`, body);
}

/** An applied edit under its header: `path +N −M` and the start of its diff. */
function editLines(diff: FileDiff, width: number, theme: Theme): string[] {
  const rows = numberedLines(diff);
  const more = rows.length - EDIT_PREVIEW_ROWS;
  const counts = `${paint('⎿ ', { color: theme.muted })}${sanitize(diff.path)} ${paint(`+${diff.added}`, { color: theme.success })} ${paint(`−${diff.removed}`, { color: theme.error })}`;
  const created = diff.created ? paint(' (new file)', { color: theme.muted }) : '';
  const preview = [
    ...diffLines(rows, width - 2, theme, 0, EDIT_PREVIEW_ROWS),
    ...(more > 0 ? block(`… ${more} more diff lines (ctrl+o to expand)`, width - 2, { color: theme.muted }) : []),
  ];
  return [...block(counts + created, width, {}, 'truncate'), ...indented(preview, 2)];
}

/** Ctrl-O: the whole output of a tool, printed into the transcript (the middle cut beyond this many lines). */
const EXPANDED_MAX_LINES = 2000;

function toolOutputLines(name: string, summary: string, output: string, columns: number, theme: Theme): string[] {
  const title = `${paint(sanitize(name), { bold: true, color: theme.tool })} ${oneLine(summary)} ${paint('— full output', { color: theme.muted })}`;
  const header = block(title, columns, {}, 'truncate');
  const diff = parseUnified(output);
  if (diff) {
    const rows = numberedLines(diff).slice(0, EXPANDED_MAX_LINES);
    return [
      ...header,
      ...indented([...block(sanitize(output.split('\n', 1)[0] ?? ''), columns - 2), ...diffLines(rows, columns - 2, theme, 0, rows.length, 'wrap')], 2),
    ];
  }
  const lines = sanitize(output).replace(/\s+$/, '').split('\n');
  const hidden = Math.max(0, lines.length - EXPANDED_MAX_LINES);
  const head = hidden > 0 ? lines.slice(0, EXPANDED_MAX_LINES / 2).join('\n') : lines.join('\n');
  const body = block(head === '' ? '(no output)' : head, columns - 2);
  if (hidden > 0) {
    body.push(...block(`… ${hidden} lines not shown …`, columns - 2, { color: theme.muted }));
    body.push(...block(lines.slice(lines.length - EXPANDED_MAX_LINES / 2).join('\n'), columns - 2));
  }
  return [...header, ...indented(body, 2)];
}

function checkpointLines(text: string, columns: number, theme: Theme): string[] {
  const { shown, hidden } = clip(sanitize(text).trim(), CHECKPOINT_PREVIEW_LINES);
  const summary = [
    ...block(shown, columns - 2, { color: theme.muted }),
    ...(hidden > 0 ? block(`… ${hidden} more lines in the summary`, columns - 2, { color: theme.muted }) : []),
  ];
  return [...block('⎔ Checkpoint — the conversation above this point was summarized', columns, { color: theme.info, bold: true }), ...indented(summary, 2)];
}

const METHOD_NOTE: Record<string, string> = {
  chunked: 'summarized in chunks',
  trimmed: 'summarized after dropping tool outputs that did not fit',
  metadata: 'the summarizer failed: a metadata-only checkpoint was written',
};

/** The receipt's main line. */
export function receiptText(r: CompactionRecord): string {
  const reason = r.reason ? oneLine(r.reason) : '';
  if (r.status === 'failed') return `Compaction failed: ${reason || 'unknown error'} — nothing was changed`;
  const sizes = `${formatTokens(r.tokensBefore)} → ${formatTokens(r.tokensAfter)} tokens`;
  if (r.status === 'ineffective') {
    return `Compaction would not shrink the context (${reason || sizes}) — nothing was changed`;
  }
  const duration = formatDuration(r.durationMs);
  if (r.trigger === 'micro') return `Cleared ${plural(r.archivedCount, 'old tool output')} · ${sizes} · ${duration}`;
  return `Compacted ${sizes} · archived ${plural(r.archivedCount, 'message')} · kept ${fmtInt(r.preservedCount)} · ${duration}`;
}

/** A compaction's receipt, or its failure (which always says nothing was changed). */
function receiptLines(record: CompactionRecord, columns: number, theme: Theme): string[] {
  const ok = record.status === 'applied';
  const color = record.status === 'failed' ? theme.error : ok ? theme.success : theme.warning;
  const trigger = record.focus ? `${record.trigger}, focus: ${oneLine(record.focus)}` : record.trigger;
  const note = ok && record.method ? METHOD_NOTE[record.method] : undefined;
  const text = `${paint(receiptText(record), { color })}${paint(` (${trigger})`, { color: theme.muted })}`;
  const mark = paint(`${ok ? '✻' : record.status === 'failed' ? '✗' : '⚠'} `, { color });
  // what the ledger carried and the summary's check, one line; Ctrl+O prints the whole report
  const report = reportLine(record);
  const more = report ? `${report} · ctrl+o for the report` : undefined;
  return [
    ...besideMarker(mark, block(text, columns - 2)),
    ...(note ? indented(block(note, columns - 2, { color: theme.muted }), 2) : []),
    ...(more ? indented(block(more, columns - 2, { color: theme.muted }), 2) : []),
  ];
}

/**
 * What <Static> prints for the first `count` of these items (each after a blank line, as
 * ItemView's top margin puts it): all of them, or those before the first one that fails to
 * draw (<Static> prints that one and the rest, an error line for it).
 */
export function printedText(items: readonly TranscriptItem[], columns: number, theme: Theme): { text: string; count: number } {
  const parts: string[] = [];
  for (const item of items) {
    let lines: string[] | null;
    try {
      lines = itemLines(item, columns, theme);
    } catch {
      break;
    }
    // each item starts with its margin's blank row; one that shows nothing is that row alone
    parts.push(lines === null ? '' : `\n${lines.join('\n')}`);
  }
  return { text: parts.length === 0 ? '' : `${parts.join('\n')}\n`, count: parts.length };
}

/**
 * The lines a finished item shows at this width; null when it shows nothing (an empty later
 * block of a reply).
 */
export function itemLines(item: TranscriptItem, columns: number, theme: Theme): string[] | null {
  switch (item.kind) {
    case 'user':
      return userLines(item, columns, theme);
    case 'assistant':
      return assistantLines(item.text, item.interrupted, item.continued === true, columns, theme);
    case 'tool':
      return toolLines(item, columns, theme);
    case 'checkpoint':
      return checkpointLines(item.text, columns, theme);
    case 'thinking':
      return thinkingLines(item, columns, theme);
    case 'meta':
      return block(`↻ ${oneLine(item.text)}`, columns, { color: theme.muted }, 'truncate');
    case 'compaction':
      return receiptLines(item.record, columns, theme);
    case 'compaction_skipped':
      return block(`⚠ Compaction (${item.trigger}) skipped: ${oneLine(item.reason)}`, columns, { color: theme.warning });
    case 'notice': {
      const color = item.level === 'error' ? theme.error : item.level === 'warning' ? theme.warning : theme.info;
      const icon = item.level === 'error' ? '✗' : item.level === 'warning' ? '⚠' : 'ℹ';
      return block(`${icon} ${sanitize(item.text)}`, columns, { color });
    }
    case 'error':
      return block(`✗ Error: ${sanitize(item.text)}`, columns, { color: theme.error });
    case 'retry':
      return block(`↻ ${sanitize(item.text)}`, columns, { color: theme.warning });
    case 'approval_detail':
      return [
        ...block(`${sanitize(item.toolName)} asks to run:`, columns, { color: theme.warning }),
        ...indented(block(sanitize(item.summary), columns - 2), 2),
      ];
    case 'tool_output':
      return toolOutputLines(item.name, item.summary, item.output, columns, theme);
    case 'command':
      return commandLines(item.command, item.output, columns, theme);
    case 'web_search':
    case 'sources':
      return searchLines(item, columns, theme);
  }
}

/** A finished thinking block: one dim line (tokens, first words); whole when expanded (Ctrl+O). */
function thinkingLines(item: Extract<TranscriptItem, { kind: 'thinking' }>, columns: number, theme: Theme): string[] {
  const head = `✻ Thought (${formatTokens(item.tokens)} tokens)`;
  const dim = { color: theme.muted };
  if (item.expanded) return [...block(head, columns, dim), ...indented(block(sanitize(item.text), columns - 2, dim), 2)];
  const first = oneLine(item.text);
  return block(first ? `${head}: ${first}` : head, columns, dim, 'truncate');
}
