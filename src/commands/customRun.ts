// Running a custom command (custom.ts): its body with the arguments in place becomes the
// turn's prompt; its allowed-tools run without asking during that turn; its !`command`s run
// once the turn began, through the permission gate (asking as the Bash tool does, refused in
// print mode unless allowed-tools or the permission settings allow them); its model, when
// given, serves that turn and the session's model comes back after it.
import type { TurnResult } from '../agent/host.js';
import type { Session } from '../session/session.js';
import { InlineCommandRefused } from '../session/turnScope.js';
import { parseToolList } from '../tools/toolNames.js';
import { inlineShell, substituteArgs, type CustomCommand } from './custom.js';
import { isKnownModel } from './modelChoices.js';

/** A command the person got wrong (the same class as the registry's, thrown from here). */
export class CustomCommandError extends Error {
  override readonly name = 'CommandError';
}

export async function runCustom(session: Session, cmd: CustomCommand, args: string, toolNames: readonly string[]): Promise<TurnResult> {
  const parsed = cmd.allowedTools !== undefined ? parseToolList(cmd.allowedTools, toolNames) : { entries: [], unknown: [] };
  if (parsed.unknown.length > 0)
    session.notice(
      'warning',
      `${cmd.file}: allowed-tools: ${parsed.unknown.map((u) => `"${u}"`).join(', ')} name${parsed.unknown.length === 1 ? 's' : ''} no tool; ignored`,
    );
  const before = session.currentConfig.model.name;
  const model = cmd.model && cmd.model !== before ? cmd.model : undefined;
  if (model && !isKnownModel(session.currentConfig, model))
    throw new CustomCommandError(`${cmd.file}: field "model": unknown model "${model}" (/model lists the known ones)`);
  const body = substituteArgs(cmd.body, args);
  if (model) session.setModel(model);
  try {
    return await session.prompt(body, { allow: parsed.entries, expand: (shell) => inlineShell(body, shell) });
  } catch (e) {
    if (e instanceof InlineCommandRefused) throw new CustomCommandError(`/${cmd.name}: ${e.message}`);
    throw e;
  } finally {
    if (model) session.setModel(before);
  }
}
