// Running a custom command (custom.ts): its body with the arguments in place becomes the
// turn's prompt; its allowed-tools run without asking during that turn; its !`command`s run
// once the turn began, through the permission gate (asking as the Bash tool does, refused in
// print mode unless allowed-tools or the permission settings allow them); its model, when
// given, serves that turn and the session's model comes back after it.
import type { TurnResult } from '../agent/host.js';
import type { Session } from '../session/session.js';
import { InlineCommandRefused } from '../session/turnScope.js';
import { withTypedCommand } from '../session/typedCommand.js';
import { parseToolList } from '../tools/toolNames.js';
import { inlineShell, substituteArgs, type CustomCommand } from './custom.js';
import { isKnownModel } from './modelChoices.js';
import { SkillCatalog } from '../skills/catalog.js';
import { alreadyLoaded } from '../skills/host.js';
import { loadedNames, wrapSkill } from '../skills/loaded.js';

/** A command the person got wrong (the same class as the registry's, thrown from here). */
export class CustomCommandError extends Error {
  override readonly name = 'CommandError';
}

export async function runCustom(session: Session, cmd: CustomCommand, args: string, toolNames: readonly string[]): Promise<TurnResult> {
  const parsed = cmd.allowedTools !== undefined ? parseToolList(cmd.allowedTools, toolNames) : { entries: [], unknown: [] };
  // a project skill's allowed-tools let its code run unasked: only once the skill may run code
  if (cmd.skill && parsed.entries.length > 0 && !(await cmd.skill.mayRunCode(new AbortController().signal))) parsed.entries = [];
  if (parsed.unknown.length > 0)
    session.notice(
      'warning',
      `${cmd.file}: allowed-tools: ${parsed.unknown.map((u) => `"${u}"`).join(', ')} name${parsed.unknown.length === 1 ? 's' : ''} no tool; ignored`,
    );
  const before = session.currentConfig.model.name;
  const model = cmd.model && cmd.model !== before ? cmd.model : undefined;
  if (model && !isKnownModel(session.currentConfig, model))
    throw new CustomCommandError(`${cmd.file}: field "model": unknown model "${model}" (/model lists the known ones)`);
  const body = cmd.skill ? await skillPrompt(session, cmd.skill, args, parsed.entries.length > 0) : substituteArgs(cmd.body, args);
  // a project skill's approval to run code (the person's, or --hooks-trust) listed its commands: they run unasked (issue 49)
  const commandsApproved =
    cmd.skill?.skill.scope === 'project' && SkillCatalog.commandsOf(body).length > 0 && (await cmd.skill.mayRunCode(new AbortController().signal));
  if (model) session.setModel(model);
  try {
    // the transcript shows the command as typed; the model gets the body after the tags that say so
    const prompt = (text: string): string => withTypedCommand(cmd.name, args, text);
    return await session.prompt(prompt(body), {
      allow: parsed.entries,
      expand: async (shell) => prompt(await inlineShell(body, shell)),
      ...(commandsApproved ? { commandsApproved } : {}),
    });
  } catch (e) {
    if (e instanceof InlineCommandRefused)
      throw new CustomCommandError(`/${cmd.name}: ${cmd.skill ? e.message.replace('in the command', 'in the skill') : e.message}`);
    throw e;
  } finally {
    if (model) session.setModel(before);
  }
}

/**
 * A skill's text for /name: loaded in its marker (skills/loaded.ts), or a note when the
 * conversation holds it already; a forked skill is handed to the model's Skill tool, which runs
 * the sub-agent. A project skill's !`command`s need the skill's approval (print mode: --hooks-trust).
 */
async function skillPrompt(session: Session, s: NonNullable<CustomCommand['skill']>, args: string, allowed: boolean): Promise<string> {
  const { skill } = s;
  if (skill.fork)
    return `Run the skill "${skill.name}" with the Skill tool${args.trim() ? ` (args: ${JSON.stringify(args.trim())})` : ''}: it runs as a sub-agent.`;
  if (loadedNames(session.messages()).has(skill.name)) return alreadyLoaded(skill, args);
  const body = substituteArgs(skill.body, args);
  const commands = SkillCatalog.commandsOf(body);
  if (commands.length > 0 && !allowed && !(await s.mayRunCode(new AbortController().signal)))
    throw new CustomCommandError(
      `/${skill.name}: ${skill.file} runs commands (${commands.map((c) => `!\`${c}\``).join(', ')}), ` +
        `and this project's skills are not approved to run code (the TUI asks; print mode needs --hooks-trust)`,
    );
  return wrapSkill(skill, body);
}
