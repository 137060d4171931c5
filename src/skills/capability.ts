// Skills as a capability: the Skill tool, closed over the session's turn (the history, the gate's
// allowances for the rest of the turn, !`command`s through the gate) and, for a `context: fork`
// skill, its runner of sub-agents; the listing as its section of the system prompt; the nested
// skill folders a turn reaches (at its start); and the invoked skills re-attached after a
// compaction archived them.
import type { Capability, CapabilityHooks, CapabilityHost, DerivedLedgerSection, TurnHost, CapabilityFactory } from '../capability/capability.js';
import type { Message } from '../llm/messages.js';
import type { Approver } from '../tools/permissions.js';
import { registerTools } from '../tools/registry.js';
import { TOOL } from '../tools/toolNames.js';
import { findSkills, type SkillCatalog, type SkillTrustDeps } from './catalog.js';
import { withSkillCommands } from './commands.js';
import { SkillUseError } from './host.js';
import { loadedNames, loadedSkills, REATTACH_EACH_TOKENS, REATTACH_TOTAL_TOKENS, skillsAfterCompaction } from './loaded.js';
import { createSkillTool } from './skillTool.js';
import type { SkillHost } from './types.js';
import { skillsText } from './view.js';

/**
 * The skills (.claude/skills, .agents/skills, …; a broken SKILL.md is a warning, a project
 * skill's code runs once trusted), each also a /name command, and /skills listing them.
 */
export const skills: CapabilityFactory = async (ctx) => {
  const catalog = await findSkills(ctx.config.cwd, ctx.env, {
    cwd: ctx.config.cwd,
    trust: ctx.trust(),
    trustProject: ctx.trustProject,
    ...(ctx.approver ? { askApproval: askSkillApproval(ctx.approver) } : {}),
    report: (level, text) => ctx.report(level, text),
  });
  // every command name but the custom ones, learned when the custom commands are merged (a skill named like one is not /name)
  let commandNames: readonly string[] = [];
  return {
    ...skillsCapability(catalog, (host) => host.subagents(ctx.agents)),
    parts: { skills: catalog },
    customCommands: (found, builtIn) => {
      commandNames = builtIn;
      const merged = withSkillCommands(found, catalog, builtIn);
      return { commands: merged.commands, warnings: [...catalog.warnings, ...merged.warnings] };
    },
    commands: [
      {
        name: 'skills',
        whileBusy: true,
        description: 'list the skills (SKILL.md folders): source, how each is used, tokens in the listing and in its body',
        run: async (session) => ({
          kind: 'text',
          text: skillsText(catalog, session.currentConfig.model.contextWindow, loadedNames(session.messages()), commandNames),
        }),
      },
    ],
  };
};

/** A project skill's code asks through the same prompt as a project's hooks. */
function askSkillApproval(approver: Approver): NonNullable<SkillTrustDeps['askApproval']> {
  return async (question, skill, signal) => {
    const answer = await approver(
      { toolName: TOOL.Skill, toolUseId: `skill-approval-${skill.file}`, input: {}, summary: question, projectCode: { what: 'skill', ...skill } },
      signal,
    );
    return answer.kind === 'allow_tool' ? 'remember' : answer.kind === 'allow_once' ? 'session' : 'no';
  };
}

/** The sub-agent runner a `context: fork` skill uses (bootstrap.ts: the host's, over the agents in force). */
export type ForkRunner = (host: CapabilityHost) => ReturnType<CapabilityHost['subagents']>;

/**
 * The Skill tool when any skill is in force (none: no tool, no listing). Nested folders are
 * reached and loaded skills re-attached either way (a resumed session may have loaded some).
 */
export function skillsCapability(catalog: SkillCatalog, fork: ForkRunner): Capability {
  const any = catalog.list().length > 0;
  const hooks: CapabilityHooks = {
    turnStart: (history, cwd) => reachNestedSkills(catalog, history, cwd),
    reattach: (before, after, contextWindow) => {
      const totalTokens = Math.min(REATTACH_TOTAL_TOKENS, Math.floor(contextWindow / 10));
      return skillsAfterCompaction(before, after, { totalTokens, eachTokens: Math.min(REATTACH_EACH_TOKENS, totalTokens) });
    },
  };
  // the listing (with its leading blank line), when the session's tools offer the Skill tool
  const systemSection = (tools: readonly { name: string }[], contextWindow: number): string => {
    const listing = tools.some((t) => t.name === TOOL.Skill) ? catalog.listing(contextWindow) : '';
    return listing ? `\n\n${listing}` : '';
  };
  return {
    name: 'skills',
    ...(any ? { toolNames: [TOOL.Skill] } : {}),
    open: (host) => ({
      hooks,
      systemSection,
      ...(any ? { tools: registerTools([createSkillTool(skillHost(catalog, host.turn), () => fork(host))]), ledger: [SKILLS_LEDGER] } : {}),
    }),
  };
}

/**
 * Claude Code's nested skills: when the model's recent calls named files below the working
 * directory, the skill folders between are read (once each); true when that added skills, so the
 * system prompt's listing is built again (at a turn's start only).
 */
async function reachNestedSkills(catalog: SkillCatalog, history: readonly Message[], cwd: string): Promise<boolean> {
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

/**
 * The working-state ledger's line for each skill loaded in the session (its body comes back
 * whole after a compaction beside it: `reattach` above): the names survive even when the
 * bodies do not fit, each with the Recall id of the message that holds it.
 */
const SKILLS_LEDGER: DerivedLedgerSection = {
  id: 'skills',
  title: 'Skills loaded',
  order: 50,
  share: 0.05,
  maxShown: 20,
  derive: ({ messages }) => {
    const { loaded, byId } = loadedSkills(messages);
    const items = loaded.map((l) => ({ text: `${l.name} (folder ${l.folder}), loaded in ${l.messageId}`, brief: l.name, recallId: l.messageId }));
    for (const [name, id] of byId) items.push({ text: `${name}, loaded in ${id}`, brief: name, recallId: id });
    return items.reverse();
  },
};

function skillHost(catalog: SkillCatalog, turn: TurnHost): SkillHost {
  return {
    catalog,
    loaded: () => loadedNames(turn.history()),
    allow: (written) => turn.allowTools(written),
    shell: async (command, signal, approved) => {
      const ran = await turn.shell(command, signal, approved);
      if ('refused' in ran) throw new SkillUseError(ran.refused.replace('in the command', 'in the skill'));
      return ran.output;
    },
    notice: (level, text) => turn.notice(level, text),
  };
}
