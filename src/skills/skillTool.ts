// The Skill tool: the model loads a skill by name (Claude Code's input, {"skill", "args"}) and
// reads its instructions as the result. The listing the model chooses from is in the system
// prompt (listing.ts), so this description stays the same bytes whatever skills there are. A
// skill with `context: fork` runs as a sub-agent instead (the Task tool's machinery), and its
// report is the result. Results are never cleared by micro compaction: a skill's instructions
// hold for the rest of the session.
import * as z from 'zod/mini';
import type { CapabilityHost } from '../capability/capability.js';
import { parseInput, toInputSchema } from '../tools/inputSchema.js';
import { TOOL } from '../tools/toolNames.js';
import type { Tool, ToolContext, ToolOutput } from '../tools/types.js';
import type { SkillCatalog } from './catalog.js';
import { SkillUseError, applySkill } from './host.js';
import type { SkillHost } from './types.js';
import { promptText } from '../promptText.js';
import DESCRIPTION from './skillTool.md';

/** The session's runner of sub-agents, as the seam lends it (a `context: fork` skill runs on it). */
type Subagents = ReturnType<CapabilityHost['subagents']>;

const SkillInputSchema = z.object({
  skill: z.string().check(z.minLength(1), z.describe('The name of the skill, as the Skills section of the system prompt lists it.')),
  args: z.optional(z.string()).check(z.describe('Arguments for the skill, if it takes any (they replace $ARGUMENTS, $1… in its instructions).')),
});
export type SkillInput = z.infer<typeof SkillInputSchema>;

/** The Skill tool over `host` (the session's turn, skills/capability.ts); a `context: fork` skill runs on `subagents`. */
export function createSkillTool(host: SkillHost, subagents: () => Subagents | undefined): Tool<SkillInput> {
  const inputSchema = toInputSchema(SkillInputSchema);
  return {
    name: TOOL.Skill,
    description: promptText(DESCRIPTION),
    inputSchema,
    // a skill's instructions hold for the rest of the session: never cleared by micro compaction
    kind: 'read',
    traits: { compactable: false },
    parse: (input) => parseInput(TOOL.Skill, SkillInputSchema, inputSchema, input),
    summarize: (input) => (input.args ? `${input.skill} ${input.args}` : input.skill),
    run: (input, ctx) => runSkill(input, ctx, host, subagents),
  };
}

const names = (catalog: SkillCatalog): string =>
  catalog
    .list()
    .filter((s) => !s.disableModelInvocation)
    .map((s) => s.name)
    .sort()
    .join(', ') || '(none)';

async function runSkill(input: SkillInput, ctx: ToolContext, host: SkillHost, subagents: () => Subagents | undefined): Promise<ToolOutput> {
  const catalog = host.catalog;
  const skill = catalog.get(input.skill.replace(/^\//, ''));
  if (!skill) return { content: `There is no skill "${input.skill}". The skills: ${names(catalog)}.`, isError: true };
  if (skill.disableModelInvocation)
    return {
      content: `The skill "${skill.name}" is run by the user only (disable-model-invocation); ask them to type /${skill.name} if it is needed.`,
      isError: true,
    };
  const args = input.args ?? '';
  try {
    if (skill.fork) {
      const sub = subagents();
      if (!sub) return { content: `The skill "${skill.name}" runs as a sub-agent (context: fork), and sub-agents cannot start here.`, isError: true };
      const agent = sub.catalog.get(skill.agent);
      if (!agent) return { content: `The skill "${skill.name}" names the agent "${skill.agent}", which does not exist.`, isError: true };
      const used = await applySkill(skill, args, host, ctx.signal, false);
      return await sub.report({ agent, description: `skill ${skill.name}`, prompt: used.text, toolUseId: ctx.toolUseId ?? '' }, ctx.signal);
    }
    const used = await applySkill(skill, args, host, ctx.signal);
    const note = used.allowed.length > 0 ? `\n\n(While this turn lasts these run without asking: ${used.allowed.join(', ')}.)` : '';
    return { content: `${used.text}${note}`, isError: false };
  } catch (e) {
    if (e instanceof SkillUseError) return { content: `The skill was not loaded: ${e.message}`, isError: true };
    throw e;
  }
}
