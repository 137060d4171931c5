// What one turn may do beyond the session's settings: a custom command's `allowed-tools`
// (those calls run without asking during that turn only) and the expansion of its body
// (its !`command`s run through the permission gate once the turn began).
import { newId, type ImageBlock } from '../llm/messages.js';
import type { AgentEvent } from '../protocol/events.js';
import type { ToolSpecEntry } from '../tools/toolNames.js';
import type { AnyTool } from '../tools/types.js';
import type { ToolGate } from './toolGate.js';
import { SHELL_ROW_NAME } from '../protocol/views.js';
import { TOOL } from '../tools/toolNames.js';

export interface TurnScope {
  /** Tool entries (Claude Code's `Bash(git add:*)` rules included) that run without asking in this turn. */
  allow?: readonly ToolSpecEntry[];
  /** Builds the prompt once the turn began; `shell` runs a command through the gate and returns its output. */
  expand?: (shell: (command: string) => Promise<string>) => Promise<string>;
  /** The person approved expand's !`command`s already (a project skill's, with its code): only plan mode can refuse them. */
  commandsApproved?: boolean;
  /** The front end puts a prompt that got no reply back into its input (the TUI): the session then takes it out of the conversation (promptBack.ts). */
  giveBack?: boolean;
  /** Images sent with the prompt (print mode's --input-format stream-json, an ACP client's prompt). */
  images?: readonly ImageBlock[];
}

/** A !`command` the gate refused: the prompt is not sent. */
export class InlineCommandRefused extends Error {
  override readonly name = 'InlineCommandRefused';
}

/** Runs a custom command's !`command` with the Bash tool, once the gate allows it (asking the person, or refused in print mode). */
export async function gatedShell(
  tools: readonly AnyTool[],
  gate: ToolGate,
  command: string,
  cwd: string,
  signal: AbortSignal,
  emit: (e: AgentEvent) => void,
  preapproved = false,
): Promise<string> {
  const bash = tools.find((t) => t.name === TOOL.Bash);
  if (!bash) throw new InlineCommandRefused(`!\`${command}\` needs the Bash tool, which this session does not have`);
  const input = bash.parse({ command, description: 'from a custom command' });
  const id = newId('sh');
  const auth = await gate.authorize({ tool: bash, input, summary: command, toolUseId: id }, signal, preapproved);
  // (approved already, only plan mode refused it: no allowed-tools entry would change that)
  const advice = preapproved ? '' : ` (list it in the command's allowed-tools, e.g. Bash(${command.split(/\s+/).slice(0, 2).join(' ')}:*))`;
  if (!auth.ok)
    throw new InlineCommandRefused(
      `!\`${command}\` in the command was not run, so the prompt was not sent: ${auth.message.replace(/^The user denied this Bash call/, 'you denied it')}${advice}`,
    );
  const started = Date.now();
  emit({ type: 'tool_start', id, name: SHELL_ROW_NAME, input, summary: command });
  const out = await bash.run(input, { cwd, signal, onProgress: (text) => emit({ type: 'tool_progress', id, text }) });
  emit({
    type: 'tool_end',
    id,
    name: SHELL_ROW_NAME,
    output: out,
    durationMs: Date.now() - started,
    status: signal.aborted ? 'interrupted' : out.isError ? 'error' : 'done',
  });
  return out.content;
}
