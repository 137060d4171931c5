// The one path from a skill and its arguments to the text the model reads, shared by the
// Skill tool and /name: arguments in place ($ARGUMENTS, $1…, as custom commands), !`command`s
// run through the permission gate once the skill's code may run, allowed-tools let through for
// the rest of the turn, and a skill already loaded answered with a note instead of a copy.
import { inlineShell, substituteArgs } from '../commands/custom.js';
import { SkillCatalog } from './catalog.js';
import { wrapSkill } from './loaded.js';
import type { Skill } from './skillFile.js';
import type { SkillHost } from './types.js';

/** A skill could not be used: the message says why (the model or the person reads it). */
export class SkillUseError extends Error {
  override readonly name = 'SkillUseError';
}

/** The note that stands for a second copy of a skill already in the conversation. */
export const alreadyLoaded = (skill: Skill, args: string): string =>
  `The skill "${skill.name}" is already loaded in this conversation (look for <skill name="${skill.name}"> above; its folder is ${skill.dir}). ` +
  `Follow it${args.trim() ? ` with the arguments: ${args.trim()}` : ''}.`;

/**
 * The text a use of the skill puts in the conversation, having let its allowed-tools through
 * and run its !`command`s (a project skill's only once its code may run: catalog.mayRunCode).
 * `once` false: a copy even when loaded (a forked skill's sub-agent sees nothing of this conversation).
 */
export async function applySkill(
  skill: Skill,
  args: string,
  host: SkillHost,
  signal: AbortSignal,
  once = true,
): Promise<{ text: string; allowed: string[]; repeated: boolean }> {
  if (once && host.loaded().has(skill.name)) return { text: alreadyLoaded(skill, args), allowed: [], repeated: true };
  const body = substituteArgs(skill.body, args);
  const commands = SkillCatalog.commandsOf(body);
  const code = commands.length > 0 || (skill.allowedTools?.length ?? 0) > 0 ? await host.catalog.mayRunCode(skill, signal) : true;
  if (commands.length > 0 && !code)
    throw new SkillUseError(
      `the skill "${skill.name}" (${skill.file}) runs commands (${commands.map((c) => `!\`${c}\``).join(', ')}), ` +
        `and this project's skills have not been approved to run code (the TUI asks; print mode needs --hooks-trust)`,
    );
  const allowed: string[] = [];
  if (skill.allowedTools?.length && code) {
    const unknown = host.allow(skill.allowedTools);
    if (unknown.length > 0)
      host.notice(
        'warning',
        `${skill.file}: allowed-tools: ${unknown.map((u) => `"${u}"`).join(', ')} name${unknown.length === 1 ? 's' : ''} no tool; ignored`,
      );
    allowed.push(...skill.allowedTools.filter((t) => !unknown.includes(t)));
  }
  // a project skill's approval (the person's, remembered or for this session, or --hooks-trust) listed
  // its commands: it is theirs, asking again for each (refusing, in print mode) would only repeat it
  const approved = code && skill.scope === 'project';
  const expanded = commands.length > 0 ? await inlineShell(body, (c) => host.shell(c, signal, approved)) : body;
  return { text: wrapSkill(skill, expanded), allowed, repeated: false };
}
