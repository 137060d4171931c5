// A hook's matcher against what the event is about: the tool's name for PreToolUse and
// PostToolUse (Claude Code's names map to this program's, so `Read` matches FileRead and
// `Edit|Write` works unchanged), the source, trigger or notification type for the others.
import { canonicalToolName } from '../tools/toolNames.js';

const PLAIN = /^[A-Za-z_][\w-]*$/;

export function matches(matcher: string | undefined, subject: string, toolNames: readonly string[]): boolean {
  const m = matcher?.trim() ?? '';
  if (m === '' || m === '*') return true;
  return m.split('|').some((alt) => {
    const a = alt.trim();
    if (a === '') return false;
    if (PLAIN.test(a)) return a === subject || canonicalToolName(a, toolNames) === subject;
    try {
      return new RegExp(`^(?:${a})$`).test(subject);
    } catch {
      return false;
    }
  });
}
