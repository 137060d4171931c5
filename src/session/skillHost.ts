// The session's side of skills (src/skills): what the Skill tool may ask of the turn it runs in
// (the history, the gate's allowances for the rest of the turn, !`command`s through the gate),
// and putting invoked skills back after a compaction archived them.
import type { Message } from '../llm/messages.js';
import type { SkillCatalog } from '../skills/catalog.js';
import { SkillUseError } from '../skills/host.js';
import { loadedNames, REATTACH_EACH_TOKENS, REATTACH_TOTAL_TOKENS, skillsAfterCompaction } from '../skills/loaded.js';
import { SKILL_TOOL } from '../skills/skillTool.js';
import type { SkillHost } from '../skills/types.js';
import { parseToolList } from '../tools/toolNames.js';
import type { AnyTool } from '../tools/types.js';
import type { SessionEvent } from './protocol.js';
import type { ToolGate } from './toolGate.js';
import { gatedShell, InlineCommandRefused } from './turnScope.js';

/** What of the session a turn's skills use. */
export interface SkillTurn {
  gate: ToolGate;
  log: { messages(): readonly Message[] };
  context: { readonly allTools: readonly AnyTool[]; readonly config: { cwd: string } };
  emit: (e: SessionEvent) => void;
}

/** The Skill tool's host for one turn (LoopOptions.skills), or nothing when the session has no skills. */
export function skillsOption(catalog: SkillCatalog | undefined, t: SkillTurn): { skills?: SkillHost } {
  if (!catalog) return {};
  return {
    skills: {
      catalog,
      loaded: () => loadedNames(t.log.messages()),
      allow: (written) => {
        const parsed = parseToolList(written, [...t.context.allTools.map((x) => x.name)]);
        t.gate.turnAllow = [...t.gate.turnAllow, ...parsed.entries];
        return parsed.unknown;
      },
      shell: async (command, signal) => {
        try {
          return await gatedShell(t.context.allTools, t.gate, command, t.context.config.cwd, signal, t.emit);
        } catch (e) {
          throw e instanceof InlineCommandRefused ? new SkillUseError(e.message.replace('in the command', 'in the skill')) : e;
        }
      },
      notice: (level, text) => t.emit({ type: 'notice', level, text }),
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
  const listing = catalog && tools.some((t) => t.name === SKILL_TOOL) ? catalog.listing(contextWindow) : '';
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
