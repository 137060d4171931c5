// What one turn may do beyond the session's settings: a custom command's `allowed-tools`
// (those calls run without asking during that turn only) and the expansion of its body
// (its !`command`s run through the permission gate once the turn began); and what a capability's
// turn reaches of the session (its TurnHost: the Skill tool's allowances and inline commands).
import { newId, type ImageBlock } from '../llm/messages.js';
import type { TurnHost } from '../capability/capability.js';
import type { AgentEvent, SessionEvent } from '../protocol/events.js';
import { parseToolList, TOOL, type ToolSpecEntry } from '../tools/toolNames.js';
import type { AnyTool } from '../tools/types.js';
import type { SessionLog } from './sessionLog.js';
import { runShellRow, type ShellRow } from './shellNote.js';
import type { ToolGate } from './toolGate.js';
import type { TurnFrames } from './turnFrame.js';

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
  const row: ShellRow = { bash, input: bash.parse({ command, description: 'from a custom command' }), id: newId('sh'), command };
  const auth = await gate.authorize({ tool: bash, input: row.input, summary: command, toolUseId: row.id }, signal, preapproved);
  // (approved already, only plan mode refused it: no allowed-tools entry would change that)
  const advice = preapproved ? '' : ` (list it in the command's allowed-tools, e.g. Bash(${command.split(/\s+/).slice(0, 2).join(' ')}:*))`;
  if (!auth.ok)
    throw new InlineCommandRefused(
      `!\`${command}\` in the command was not run, so the prompt was not sent: ${auth.message.replace(/^The user denied this Bash call/, 'you denied it')}${advice}`,
    );
  return (await runShellRow(row, cwd, signal, emit)).output.content;
}

/** What of the session a capability's turn reaches (read when it is called: these parts are built after the capabilities are opened). */
export interface TurnParts {
  gate: ToolGate;
  log: Pick<SessionLog, 'messages' | 'archived'>;
  frames: Pick<TurnFrames, 'current'>;
  /** The built-in tools the person's own commands run (a skill's inline commands). */
  direct: () => readonly AnyTool[];
  emit: (e: SessionEvent) => void;
}

/** The capabilities' TurnHost (the Skill tool's history, allowances and gated commands; plan mode's questions). */
export function turnHost(turn: () => TurnParts): TurnHost {
  return {
    history: () => turn().log.messages(),
    allowTools: (written) => {
      const t = turn();
      const parsed = parseToolList(written, [...t.frames.current.tools.map((x) => x.name)]);
      t.gate.turnAllow = [...t.gate.turnAllow, ...parsed.entries];
      return parsed.unknown;
    },
    shell: async (command, signal, preapproved) => {
      const t = turn();
      try {
        return { output: await gatedShell(t.direct(), t.gate, command, t.frames.current.config.cwd, signal, t.emit, preapproved) };
      } catch (e) {
        if (e instanceof InlineCommandRefused) return { refused: e.message };
        throw e;
      }
    },
    notice: (level, text) => turn().emit({ type: 'notice', level, text }),
    activity: (label, done) => turn().emit({ type: 'activity', label, done }),
    permissionMode: () => turn().gate.mode,
    askPlan: (plan, toolUseId, signal) => turn().gate.askPlan(plan, toolUseId, signal),
    setPermissionMode: (mode) => void turn().gate.setMode(mode),
    workLog: () => {
      const log = turn().log;
      return [...log.archived(), ...log.messages()];
    },
  };
}
