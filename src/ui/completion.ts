// Slash-command completion against the registry's commands.
import type { CommandInfo } from '../protocol/views.js';
import { editDistance } from '../editDistance.js';

/** A command's name without the leading slash (the registry may store it either way). */
export const bareName = (c: CommandInfo): string => c.name.replace(/^\//, '');

/** The "/word" being typed: the text starts with "/" and the cursor is still inside the first word (a path such as /etc/hosts is no command word). */
export function commandWord(text: string, cursor: number): string | null {
  if (!text.startsWith('/')) return null;
  const before = text.slice(0, cursor);
  if (/\s/.test(before)) return null;
  const m = /^\/\S*/.exec(text);
  if (!m || !/^\/[\w:-]*$/.test(m[0])) return null;
  return m[0];
}

/** Whether a submitted line is a slash command: "/word" naming a command or close to one; "/etc/hosts is it fine?" is a prompt. */
export function isCommandText(text: string, commands: readonly CommandInfo[]): boolean {
  const m = /^\/([a-z][\w:-]*)(?:\s|$)/i.exec(text.trim());
  if (!m) return false;
  const word = `/${m[1]!.toLowerCase()}`;
  return commands.some((c) => bareName(c) === word.slice(1)) || matchCommands(word, commands).length > 0 || suggestCommand(word, commands) !== undefined;
}

export function matchCommands(word: string, commands: readonly CommandInfo[]): CommandInfo[] {
  const typed = word.slice(1).toLowerCase();
  return commands.filter((c) => bareName(c).toLowerCase().startsWith(typed)).sort((a, b) => bareName(a).localeCompare(bareName(b)));
}

export function commonPrefix(names: readonly string[]): string {
  if (names.length === 0) return '';
  let p = names[0]!;
  for (const n of names) {
    let i = 0;
    while (i < p.length && i < n.length && p[i]!.toLowerCase() === n[i]!.toLowerCase()) i++;
    p = p.slice(0, i);
  }
  return p;
}

/** The closest command name to a mistyped one, when it is close enough to be a likely typo. */
export function suggestCommand(word: string, commands: readonly CommandInfo[]): CommandInfo | undefined {
  const typed = word.replace(/^\//, '').toLowerCase();
  if (typed === '') return undefined;
  let best: CommandInfo | undefined;
  let bestD = Infinity;
  for (const c of commands) {
    const d = editDistance(typed, bareName(c).toLowerCase());
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  const limit = Math.max(1, Math.floor(typed.length / 3));
  return bestD <= limit ? best : undefined;
}

export interface CompletionView {
  /** The "/word" typed so far. */
  word: string;
  matches: CommandInfo[];
  /** The highlighted match (↑↓ move it, Tab cycling puts it into the prompt); -1: the first, nothing chosen yet. */
  index: number;
  /** For a word that matches nothing: the command it was probably meant to be. */
  suggestion?: CommandInfo;
}

/** The command menu for the "/word" at the cursor: its matches, or the command it was probably meant to be; null when no command is being typed. */
export function completionOf(text: string, cursor: number, commands: readonly CommandInfo[]): CompletionView | null {
  const word = commandWord(text, cursor);
  if (word === null) return null;
  const matches = matchCommands(word, commands);
  if (matches.length > 0) return { word, matches, index: -1 };
  const suggestion = word.length > 1 ? suggestCommand(word, commands) : undefined;
  return suggestion ? { word, matches: [], index: -1, suggestion } : { word, matches: [], index: -1 };
}

/** Whether two menus list the same commands and suggestion (the highlight aside). */
export function sameMenu(a: CompletionView | null, b: CompletionView | null): boolean {
  const names = (c: CompletionView | null): string => (c ? [...c.matches.map(bareName), c.suggestion ? bareName(c.suggestion) : ''].join('\n') : '');
  return names(a) === names(b);
}
