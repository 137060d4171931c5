// The session's side of skills (src/skills): what a tool may ask of the turn it runs in (the
// history, the gate's allowances for the rest of the turn, !`command`s through the gate: the
// capabilities' TurnHost), the listing, nested skill folders, and putting invoked skills back
// after a compaction archived them.
import type { Message } from '../llm/messages.js';
import type { TurnHost } from '../capability/capability.js';
import type { SkillCatalog } from '../skills/catalog.js';
import { REATTACH_EACH_TOKENS, REATTACH_TOTAL_TOKENS, skillsAfterCompaction } from '../skills/loaded.js';
import { parseToolList, TOOL } from '../tools/toolNames.js';
import type { AnyTool } from '../tools/types.js';
import type { SessionEvent } from './protocol.js';
import type { ToolGate } from './toolGate.js';
import { gatedShell, InlineCommandRefused } from './turnScope.js';

/** What of the session a tool call's turn uses (read when the call runs: the session builds them after its capabilities). */
export interface SessionTurn {
  gate: ToolGate;
  log: { messages(): readonly Message[]; archived(): Message[] };
  context: { readonly allTools: readonly AnyTool[]; readonly config: { cwd: string } };
  emit: (e: SessionEvent) => void;
}

/** The capabilities' TurnHost (the Skill tool's history, allowances and gated commands). */
export function turnHost(turn: () => SessionTurn): TurnHost {
  return {
    history: () => turn().log.messages(),
    allowTools: (written) => {
      const t = turn();
      const parsed = parseToolList(written, [...t.context.allTools.map((x) => x.name)]);
      t.gate.turnAllow = [...t.gate.turnAllow, ...parsed.entries];
      return parsed.unknown;
    },
    shell: async (command, signal) => {
      const t = turn();
      try {
        return { output: await gatedShell(t.context.allTools, t.gate, command, t.context.config.cwd, signal, t.emit) };
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

/**
 * After a compaction (not micro): the skills loaded before it that the compacted history lost are
 * appended as one message (skills/loaded.ts), within a tenth of the window at most.
 */
export function reattachSkills(
  catalog: SkillCatalog | undefined,
  before: readonly Message[],
  log: { messages(): readonly Message[]; append(m: Message): Message },
  contextWindow: number,
): void {
  if (!catalog) return;
  const totalTokens = Math.min(REATTACH_TOTAL_TOKENS, Math.floor(contextWindow / 10));
  const msg = skillsAfterCompaction(before, log.messages(), { totalTokens, eachTokens: Math.min(REATTACH_EACH_TOKENS, totalTokens) });
  if (msg) log.append(msg);
}

/** The system prompt's skills section (with its leading blank line), when the tools offer the Skill tool; else ''. */
export function skillsSection(catalog: SkillCatalog | undefined, tools: readonly AnyTool[], contextWindow: number): string {
  const listing = catalog && tools.some((t) => t.name === TOOL.Skill) ? catalog.listing(contextWindow) : '';
  return listing ? `\n\n${listing}` : '';
}

/**
 * Claude Code's nested skills: when the model's recent calls named files below the working
 * directory, the skill folders between are read (once each); true when that added skills, so the
 * system prompt's listing is built again (at a turn's start only).
 */
export async function reachNestedSkills(catalog: SkillCatalog | undefined, history: readonly Message[], cwd: string): Promise<boolean> {
  if (!catalog) return false;
  let added = false;
  for (const m of history.slice(-RECENT_MESSAGES)) {
    for (const b of m.role === 'assistant' ? m.blocks : []) {
      const p = b.type === 'tool_use' ? (b.input['path'] ?? b.input['file_path']) : undefined;
      if (typeof p === 'string' && p !== '') added = (await catalog.reach(cwd, p)).added.length > 0 || added;
    }
  }
  return added;
}

/** How far back a turn's start looks for files the model worked on (a turn's tool loop, and then some). */
const RECENT_MESSAGES = 60;
