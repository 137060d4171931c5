// Skills as a capability: the Skill tool, closed over the session's turn (the history, the gate's
// allowances for the rest of the turn, !`command`s through the gate) and, for a `context: fork`
// skill, its runner of sub-agents. The listing in the system prompt, the nested skill folders a
// turn reaches and re-attaching invoked skills after a compaction stay with the session's context
// (session/skillHost.ts), which reads the same catalog.
import type { Capability, CapabilityHost, DerivedLedgerSection, TurnHost } from '../capability/capability.js';
import { registerTools } from '../tools/registry.js';
import { TOOL } from '../tools/toolNames.js';
import type { SkillCatalog } from './catalog.js';
import { SkillUseError } from './host.js';
import { loadedNames, loadedSkills } from './loaded.js';
import { createSkillTool } from './skillTool.js';
import type { SkillHost } from './types.js';

/** The sub-agent runner a `context: fork` skill uses (bootstrap.ts: the host's, over the agents in force). */
export type ForkRunner = (host: CapabilityHost) => ReturnType<CapabilityHost['subagents']>;

/** The Skill tool when any skill is in force (none: no tool, no listing). */
export function skillsCapability(catalog: SkillCatalog, fork: ForkRunner): Capability {
  const any = catalog.list().length > 0;
  return {
    name: 'skills',
    ...(any ? { toolNames: [TOOL.Skill] } : {}),
    open: (host) => (any ? { tools: registerTools([createSkillTool(skillHost(catalog, host.turn), () => fork(host))]), ledger: [SKILLS_LEDGER] } : {}),
  };
}

/**
 * The working-state ledger's line for each skill loaded in the session (its body comes back
 * whole after a compaction beside it, session/skillHost.ts): the names survive even when the
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
    shell: async (command, signal) => {
      const ran = await turn.shell(command, signal);
      if ('refused' in ran) throw new SkillUseError(ran.refused.replace('in the command', 'in the skill'));
      return ran.output;
    },
    notice: (level, text) => turn.notice(level, text),
  };
}
