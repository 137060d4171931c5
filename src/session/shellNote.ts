// `!command` in the prompt: the person runs a shell command themselves. It runs at once through
// the Bash tool's runner (no model call, no approval: the person typed it), its output is shown
// as a tool row, and a note with the command and its output joins the history, so the model
// reads it on the next turn and a resumed session still has it.
import { newId, type Message } from '../llm/messages.js';
import type { AgentEvent } from '../protocol/events.js';
import { SHELL_ROW_NAME } from '../protocol/views.js';
import type { AnyTool, ToolOutput } from '../tools/types.js';
import { TOOL } from '../tools/toolNames.js';

export const SHELL_NOTE_HEADER = '[The user ran a shell command in the terminal (not a request to you); command and output for reference]';

export interface ShellNote {
  command: string;
  output: string;
  isError: boolean;
}

export function shellNoteText(n: ShellNote): string {
  return `${SHELL_NOTE_HEADER}\n$ ${n.command}\n<output${n.isError ? ' status="failed"' : ''}>\n${n.output}\n</output>`;
}

/**
 * The note a `!command` leaves in the history: its text for the model, its origin for the views
 * (the command, output and how the run ended, so that none of them reads the text).
 */
export function shellNote(n: ShellNote, status: 'done' | 'error' | 'interrupted'): Message {
  return {
    id: newId(),
    role: 'user',
    kind: 'normal',
    createdAt: Date.now(),
    blocks: [{ type: 'text', text: shellNoteText(n) }],
    origin: { kind: 'shell', command: n.command, output: n.output, status },
  };
}

/** True for the note a `!command` left in the history. */
export const isShellNote = (m: Message): boolean => m.origin?.kind === 'shell';

/**
 * Runs the command with the Bash tool (its timeout, output limits, secret redaction and
 * interruption) and returns the note to append. tool_start / tool_end events show it as a row.
 */
export async function runShellNote(
  tools: readonly AnyTool[],
  command: string,
  cwd: string,
  signal: AbortSignal,
  emit: (e: AgentEvent) => void,
): Promise<Message> {
  const bash = tools.find((t) => t.name === TOOL.Bash);
  if (!bash) throw new Error('shell mode needs the Bash tool, which this session does not have');
  const row: ShellRow = { bash, input: bash.parse({ command, description: 'typed by the user' }), id: newId('sh'), command };
  const { output, status } = await runShellRow(row, cwd, signal, emit);
  return shellNote({ command, output: output.content, isError: output.isError }, status);
}

/** A command the person gave (typed after `!`, or a custom command's !`command`), as the Bash tool runs it under a shell row's id. */
export interface ShellRow {
  bash: AnyTool;
  input: unknown;
  id: string;
  command: string;
}

/** Runs a shell row in the foreground: tool_start, its progress and tool_end show it; its output and how the run ended. */
export async function runShellRow(
  row: ShellRow,
  cwd: string,
  signal: AbortSignal,
  emit: (e: AgentEvent) => void,
): Promise<{ output: ToolOutput; status: 'done' | 'error' | 'interrupted' }> {
  const { bash, input, id, command } = row;
  const started = Date.now();
  emit({ type: 'tool_start', id, name: SHELL_ROW_NAME, input, summary: command });
  const output = await bash.run(input, { cwd, signal, onProgress: (text) => emit({ type: 'tool_progress', id, text }) });
  const status = signal.aborted ? 'interrupted' : output.isError ? 'error' : 'done';
  emit({ type: 'tool_end', id, name: SHELL_ROW_NAME, output, durationMs: Date.now() - started, status });
  return { output, status };
}
