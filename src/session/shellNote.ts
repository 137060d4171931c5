// `!command` in the prompt: the person runs a shell command themselves. It runs at once through
// the Bash tool's runner (no model call, no approval: the person typed it), its output is shown
// as a tool row, and a note with the command and its output joins the history, so the model
// reads it on the next turn and a resumed session still has it.
import { newId, type Message } from '../llm/messages.js';
import type { AgentEvent } from '../protocol/events.js';
import type { AnyTool } from '../tools/types.js';
import { TOOL } from '../tools/toolNames.js';

export const SHELL_NOTE_HEADER = '[The user ran a shell command in the terminal (not a request to you); command and output for reference]';
/** The name tool rows show for a person's own command. */
export const SHELL_ROW_NAME = 'Shell';

export interface ShellNote {
  command: string;
  output: string;
  isError: boolean;
}

export function shellNoteText(n: ShellNote): string {
  return `${SHELL_NOTE_HEADER}\n$ ${n.command}\n<output${n.isError ? ' status="failed"' : ''}>\n${n.output}\n</output>`;
}

/** The command and output of a note written by shellNoteText; undefined for any other text. */
export function parseShellNote(text: string): ShellNote | undefined {
  if (!text.startsWith(`${SHELL_NOTE_HEADER}\n$ `)) return undefined;
  const m = /^\$ (.*)\n<output( status="failed")?>\n([\s\S]*)\n<\/output>$/.exec(text.slice(SHELL_NOTE_HEADER.length + 1));
  if (!m) return undefined;
  return { command: m[1]!, isError: m[2] !== undefined, output: m[3]! };
}

/** True for the note a `!command` left in the history (one text block written by shellNoteText). */
export const isShellNote = (m: Message): boolean => {
  const only = m.blocks.length === 1 ? m.blocks[0] : undefined;
  return m.role === 'user' && m.kind === 'normal' && only?.type === 'text' && parseShellNote(only.text) !== undefined;
};

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
  const input = bash.parse({ command, description: 'typed by the user' });
  const id = newId('sh');
  const started = Date.now();
  emit({ type: 'tool_start', id, name: SHELL_ROW_NAME, input, summary: command });
  const out = await bash.run(input, { cwd, signal, onProgress: (text) => emit({ type: 'tool_progress', id, text }) });
  const status = signal.aborted ? 'interrupted' : out.isError ? 'error' : 'done';
  emit({ type: 'tool_end', id, name: SHELL_ROW_NAME, output: out, durationMs: Date.now() - started, status });
  return {
    id: newId(),
    role: 'user',
    kind: 'normal',
    createdAt: Date.now(),
    blocks: [{ type: 'text', text: shellNoteText({ command, output: out.content, isError: out.isError }) }],
  };
}
