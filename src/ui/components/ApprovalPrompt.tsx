import { Box, Text } from 'ink';
import type { ApprovalView } from '../approval.js';
import { approvalOptions, projectCodePronoun } from '../approval.js';
import { sanitize } from '../sanitize.js';
import { boxBorder, useTheme } from '../theme.js';
import { wrappedDiffLines } from '../item-text.js';
import type { Theme } from '../theme.js';
import { useTerminalSize } from './terminal-size.js';
import { TOOL } from '../../tools/toolNames.js';
import { plural } from '../../tools/format.js';

/** Rows the approval box needs besides the diff (title, stat, options, help, borders). */
const CHROME_ROWS = 14;

/** How many diff rows fit on a screen of `rows` rows. */
export const diffRowsFor = (rows: number): number => Math.max(4, rows - CHROME_ROWS);

const wrapped = new WeakMap<object, { columns: number; theme: Theme; lines: string[] }>();

/** The prompt's diff as screen lines for a terminal `columns` wide: long lines wrap, nothing approved is hidden. */
export function diffLinesFor(view: ApprovalView, columns: number, theme: Theme): string[] {
  const hit = wrapped.get(view.diffRows);
  if (hit && hit.columns === columns && hit.theme === theme) return hit.lines;
  // the box's border and padding take four columns
  const lines = wrappedDiffLines(view.diffRows, Math.max(8, columns - 4), theme);
  wrapped.set(view.diffRows, { columns, theme, lines });
  return lines;
}

/** For a Write: what the whole new content is, before its diff. */
function writeSummary(view: ApprovalView): string | null {
  const input = view.request.input as { content?: unknown } | null;
  if (view.request.toolName !== TOOL.Write || typeof input?.content !== 'string') return null;
  const content = input.content;
  const lines = content === '' ? 0 : content.replace(/\n$/, '').split('\n').length;
  const bytes = Buffer.byteLength(content);
  const size = bytes < 1024 ? `${bytes} bytes` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  const what = view.request.diff?.created ? 'New file' : 'Replaces the whole file with';
  return `${what}: ${plural(lines, 'line')}, ${size}`;
}

/**
 * "Bash wants to run …" with the command in full, or "Edit wants to change path" with the diff
 * (scrollable when it is taller than the screen); then the options.
 */
export function ApprovalPrompt({ view, pending }: { view: ApprovalView; pending: number }) {
  const theme = useTheme();
  const { rows, columns } = useTerminalSize();
  const options = approvalOptions(view.request);
  const req = view.request;
  const diff = req.diff;
  const of = pending > 1 ? ` (1 of ${pending})` : '';
  // the option a note to the model goes with (none for a project's code: there is no model to tell)
  const noteAt = options.findIndex((o) => o.kind === 'deny') + 1;
  return (
    <Box flexDirection="column" borderStyle={boxBorder(theme)} borderColor={theme.warning} paddingX={1}>
      {req.agent ? (
        <Text color={theme.accent} wrap="truncate-end">
          sub-agent {sanitize(req.agent)} asks:
        </Text>
      ) : null}
      {diff ? <EditHeader view={view} of={of} /> : <CommandHeader view={view} of={of} />}
      {diff ? <DiffBody lines={diffLinesFor(view, columns, theme)} scroll={view.scroll} max={diffRowsFor(rows)} /> : null}
      <Box flexDirection="column" marginTop={1}>
        {options.map((o, i) => {
          const selected = i === view.selected;
          const denial = o.kind === 'deny' || o.kind === 'stop';
          return (
            <Text key={o.kind} color={selected ? theme.accent : undefined} bold={selected}>
              {selected ? '❯ ' : '  '}
              {i + 1}. {o.label}
              {denial && selected ? (
                <Text>
                  {' '}
                  — note: {view.note}
                  <Text inverse> </Text>
                </Text>
              ) : null}
            </Text>
          );
        })}
      </Box>
      {view.editorNote ? <Text color={view.edited ? theme.info : theme.warning}>{sanitize(view.editorNote)}</Text> : null}
      {view.stray !== '' ? (
        <Text color={theme.warning}>
          Typed text is not an answer and was ignored: “{sanitize(view.stray).slice(-40)}” · Enter dismisses this
          {noteAt > 0 ? ` · to send a note, select ${noteAt} and type` : ''}
        </Text>
      ) : null}
      <Text color={theme.muted}>
        enter: choose · ↑↓ or 1–{options.length}: select · esc: {req.projectCode ? `do not run ${projectCodePronoun(req)}` : 'deny and stop'}
        {diff && diffLinesFor(view, columns, theme).length > diffRowsFor(rows) ? ' · pgup/pgdn, home/end: scroll the diff' : ''}
        {diff ? ' · ctrl+o: print the whole diff above' : ''}
      </Text>
    </Box>
  );
}

/** What asks: "Bash wants to run", or the project file whose hooks or MCP server would run. */
function askerTitle(req: ApprovalView['request']): string {
  const p = req.projectCode;
  if (req.plan !== undefined) return 'The model presents its plan: approve it to leave plan mode';
  if (!p) return `${req.toolName} wants to run`;
  if (p.what === 'skill') return `${p.file} ${p.changed ? 'changed since you approved it' : 'is a project skill'}: its commands would run`;
  if (p.what === 'hooks')
    return `${p.file} ${p.changed ? 'changed its hooks since you approved them' : 'has hooks'}: shell commands that run on the agent's events`;
  return `MCP server "${p.name}" from ${p.file} asks to start${p.changed ? ' (its entry changed since you approved it)' : ''}; it would run`;
}

function CommandHeader({ view, of }: { view: ApprovalView; of: string }) {
  const theme = useTheme();
  const command = sanitize(view.request.summary || JSON.stringify(view.request.input) || '');
  const lines = command.split('\n');
  const shown = view.detailAbove ? lines.slice(0, 3).join('\n') : command;
  return (
    <>
      <Text bold color={theme.warning}>
        {sanitize(askerTitle(view.request))}
        {of}
      </Text>
      <Box paddingLeft={2} flexDirection="column">
        <Text>{shown}</Text>
        {view.detailAbove ? <Text color={theme.muted}>… {lines.length - 3} more lines (the full command is printed above)</Text> : null}
      </Box>
      {view.request.unsandboxed ? <Text color={theme.error}>⚠ outside the sandbox: {sanitize(view.request.unsandboxed)}</Text> : null}
    </>
  );
}

function EditHeader({ view, of }: { view: ApprovalView; of: string }) {
  const theme = useTheme();
  const d = view.request.diff!;
  const summary = writeSummary(view);
  return (
    <>
      <Text bold color={theme.warning} wrap="truncate-end">
        {sanitize(view.request.toolName)} wants to {d.created ? 'create' : 'change'} {sanitize(d.path)}
        {of}
      </Text>
      <Text wrap="truncate-end">
        <Text color={theme.success}>+{d.added}</Text> <Text color={theme.error}>−{d.removed}</Text>
        {view.request.outsideCwd ? <Text color={theme.warning}> · outside the working directory</Text> : null}
      </Text>
      {summary ? <Text color={theme.info}>{summary}</Text> : null}
    </>
  );
}

function DiffBody({ lines, scroll, max }: { lines: string[]; scroll: number; max: number }) {
  const theme = useTheme();
  const total = lines.length;
  const from = Math.min(scroll, Math.max(0, total - max));
  const below = total - from - max;
  return (
    <Box flexDirection="column" marginTop={1}>
      {from > 0 ? <Text color={theme.muted}> ↑ {from} more lines</Text> : null}
      {lines.slice(from, from + max).map((l, i) => (
        <Text key={from + i} wrap="truncate-end">
          {l}
        </Text>
      ))}
      {below > 0 ? <Text color={theme.muted}> ↓ {below} more lines</Text> : null}
    </Box>
  );
}
