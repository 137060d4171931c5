// Skills as slash commands: each user-invocable skill is /name (Claude Code merged custom
// commands into skills: `.claude/commands/deploy.md` and `.claude/skills/deploy/SKILL.md` both
// make /deploy, and the skill wins, with a notice). A built-in command keeps its name; the skill
// stays loadable by the model.
import type { CustomCommand } from '../commands/custom.js';
import type { SkillCatalog } from './catalog.js';

/** The custom commands with the skills among them; warnings name what each clash hid. */
export function withSkillCommands(
  commands: readonly CustomCommand[],
  catalog: SkillCatalog,
  builtins: readonly string[],
): { commands: CustomCommand[]; warnings: string[] } {
  const warnings: string[] = [];
  const skills: CustomCommand[] = [];
  for (const skill of catalog.list()) {
    if (!skill.userInvocable) continue;
    if (builtins.includes(skill.name)) {
      warnings.push(`${skill.file}: /${skill.name} is a built-in command, which wins; the model can still load the skill`);
      continue;
    }
    const hidden = commands.find((c) => c.name === skill.name);
    if (hidden) warnings.push(`${hidden.file}: /${skill.name} is also the skill ${skill.file}, which wins`);
    skills.push({
      name: skill.name,
      description: skill.description,
      body: skill.body,
      file: skill.file,
      source: `skill, ${skill.source}`,
      ...(skill.argumentHint ? { args: skill.argumentHint } : {}),
      ...(skill.model ? { model: skill.model } : {}),
      ...(skill.allowedTools ? { allowedTools: [...skill.allowedTools] } : {}),
      skill: { skill, mayRunCode: (signal) => catalog.mayRunCode(skill, signal) },
    });
  }
  const names = new Set(skills.map((s) => s.name));
  return { commands: [...skills, ...commands.filter((c) => !names.has(c.name))], warnings };
}
