// What the model sees of the skills before it uses one: each name and description, in the
// system prompt (so the listing heads the cached prefix and survives every compaction), cut to a
// budget of about 2% of the context window as Codex does. Byte-stable: sorted by name, the same
// catalog and window give the same bytes. A skill with disable-model-invocation is left out.
import type { Skill } from './skillFile.js';
import { promptText } from '../promptText.js';
import LISTING from './listing.md';

/** The listing's share of the context window, in tokens. */
export const LISTING_SHARE = 0.02;
/** Characters per token for the budget (a plain estimate: the listing is English prose). */
const CHARS_PER_TOKEN = 4;
/** No description is longer than this in the listing (Claude Code cuts at about the same). */
const MAX_DESCRIPTION = 250;
/** Below this a description says too little to choose by: names alone are listed instead. */
const MIN_DESCRIPTION = 60;

export const LISTING_HEADER = promptText(LISTING);

/** The listing's budget in characters for a context window of `window` tokens. */
export const listingBudget = (window: number): number => Math.floor(window * LISTING_SHARE * CHARS_PER_TOKEN);

const cut = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);

/** The system prompt's skills section, or '' when no skill is offered to the model. */
export function renderListing(skills: readonly Skill[], window: number): string {
  const offered = skills.filter((s) => !s.disableModelInvocation).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (offered.length === 0) return '';
  const budget = listingBudget(window) - LISTING_HEADER.length - 2;
  const lines = (max: number): string[] => offered.map((s) => `- ${s.name}: ${cut(s.description, max)}`);
  const size = (ls: readonly string[]): number => ls.reduce((n, l) => n + l.length + 1, 0);
  // the longest description that lets every skill in, found by halving
  let lo = MIN_DESCRIPTION;
  let hi = MAX_DESCRIPTION;
  if (size(lines(hi)) > budget) {
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (size(lines(mid)) <= budget) lo = mid;
      else hi = mid - 1;
    }
  } else lo = hi;
  let body = lines(lo);
  if (size(body) > budget) body = namesOnly(offered, budget);
  return `${LISTING_HEADER}\n\n${body.join('\n')}`;
}

/** Over budget even with short descriptions: as many described as fit, then the rest by name, then a count. */
function namesOnly(offered: readonly Skill[], budget: number): string[] {
  const out: string[] = [];
  let used = 0;
  let i = 0;
  for (; i < offered.length; i++) {
    const line = `- ${offered[i]!.name}: ${cut(offered[i]!.description, MIN_DESCRIPTION)}`;
    if (used + line.length + 1 > budget / 2) break;
    out.push(line);
    used += line.length + 1;
  }
  const names: string[] = [];
  const tail = (left: number): string => `- (${left} more skill${left === 1 ? '' : 's'}: the Skill tool loads any by name)`;
  for (; i < offered.length; i++) {
    const next = [...names, offered[i]!.name].join(', ');
    if (used + `- Also: ${next}`.length + 1 + tail(offered.length - i - 1).length > budget) break;
    names.push(offered[i]!.name);
  }
  if (names.length > 0) out.push(`- Also: ${names.join(', ')}`);
  if (i < offered.length) out.push(tail(offered.length - i));
  return out;
}
