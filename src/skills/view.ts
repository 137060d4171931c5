// /skills: every skill in force with where it comes from, how it can be used, and what it
// costs: its line in the listing (every request carries it) and its body (only once used). A
// skill named like a built-in command is not /name (the built-in runs: skills/commands.ts).
import { renderListing } from './listing.js';
import type { SkillCatalog } from './catalog.js';
import { fmtInt } from '../tools/format.js';

/** Tokens of a text, estimated (four characters a token): /skills shows orders of magnitude. */
const tokens = (text: string): number => Math.ceil(text.length / 4);

export function skillsText(catalog: SkillCatalog, contextWindow: number, loaded: ReadonlySet<string> = new Set(), builtins: readonly string[] = []): string {
  const skills = [...catalog.list()].sort((a, b) => a.name.localeCompare(b.name));
  const lines: string[] = [];
  if (skills.length === 0)
    lines.push(
      'No skills. A skill is a folder with a SKILL.md (name, description, then instructions) in .claude/skills, .agents/skills or .agent/skills of the project, or ~/.claude/skills, ~/.agents/skills.',
    );
  else {
    const listing = renderListing(skills, contextWindow);
    lines.push(`Skills (${skills.length}); the listing costs ≈${fmtInt(tokens(listing))} tokens in every request, a body only once loaded:`);
    for (const s of skills) {
      const how = [
        s.userInvocable ? (builtins.includes(s.name) ? `not /${s.name} (the built-in command runs)` : `/${s.name}`) : '',
        s.disableModelInvocation ? 'you only' : 'model',
        s.fork ? 'sub-agent' : '',
        loaded.has(s.name) ? 'loaded' : '',
      ]
        .filter(Boolean)
        .join(', ');
      const inListing = s.disableModelInvocation || !listing.includes(`- ${s.name}:`) ? 0 : tokens(`- ${s.name}: ${s.description}`);
      lines.push(`  ${s.name}  ${s.source} · ${how} · listing ≈${inListing} · body ≈${fmtInt(tokens(s.body))} tokens`);
      lines.push(`    ${s.description.length > 100 ? `${s.description.slice(0, 99)}…` : s.description}`);
    }
  }
  for (const w of catalog.warnings) lines.push(`  ! ${w}`);
  return lines.join('\n');
}
