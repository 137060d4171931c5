// The ledger as one block of text within its budget: every section's items whole while they
// fit, then one line each, then listed by Recall id, the least important first. Nothing is
// dropped without a trace: what is not shown is listed by id, or counted.
import type { LedgerItem, LedgerSection, RenderedSection } from './types.js';

export type Count = (text: string) => number;

export const LEDGER_HEADER =
  '## Working state (ledger)\nDerived from the session log, not from the summary: it carries what the summary may have left out. Where they differ, this is right.';

/** 0 whole, 1 one line, 2 listed by id only. */
type Level = 0 | 1 | 2;

interface Slot {
  item: LedgerItem;
  level: Level;
  cost: [number, number, number];
}

const truncatedNote = (id: string | undefined): string => `\n[shortened here${id ? ` — Recall id ${id} has it whole` : ''}]`;

/** Cuts a text to at most `tokens` (by halving the characters kept until it fits). */
function cutToTokens(text: string, tokens: number, count: Count): string {
  if (tokens <= 0) return '';
  let keep = Math.min(text.length, tokens * 4);
  while (keep > 0 && count(text.slice(0, keep)) > tokens) keep = Math.floor(keep * 0.8);
  return text.slice(0, keep);
}

function listedLine(ids: readonly string[], others: number): string {
  const parts: string[] = [];
  if (ids.length > 0) parts.push(`Not shown here (read them with Recall id): ${ids.join(', ')}`);
  if (others > 0) parts.push(`${ids.length > 0 ? 'and ' : ''}${others} more not shown`);
  return parts.join('; ');
}

/**
 * One section within `budget` tokens; '' with nothing to show. `fadeFromStart`: the items are
 * oldest first and the oldest give way first (the person's words); otherwise newest first and
 * the last ones give way first.
 */
export function renderSection(
  section: Pick<LedgerSection, 'title' | 'note' | 'maxShown'>,
  items: readonly LedgerItem[],
  budget: number,
  count: Count,
  fadeFromStart: boolean,
): { text: string; shown: number; listed: number } {
  if (items.length === 0) return { text: '', shown: 0, listed: 0 };
  const head = `### ${section.title}${section.note ? `\n${section.note}` : ''}`;
  const max = section.maxShown ?? Number.POSITIVE_INFINITY;
  const slots: Slot[] = items.map((item, i) => {
    const whole = count(item.text) + 1;
    const brief = item.brief !== undefined ? count(item.brief) + 1 : whole;
    const listed = item.recallId !== undefined ? count(item.recallId) + 1 : 0;
    return { item, level: i < max ? 0 : 2, cost: [whole, brief, listed] };
  });
  let total = count(head) + 12 + slots.reduce((n, s) => n + s.cost[s.level], 0);
  const order = fadeFromStart ? slots : [...slots].reverse();
  const newest = fadeFromStart ? slots[slots.length - 1] : slots[0];
  const lower = (s: Slot, to: Level): void => {
    if (total <= budget || s.level >= to) return;
    total += s.cost[to] - s.cost[s.level];
    s.level = to;
  };
  for (const s of order) if (!s.item.anchor) lower(s, 1);
  for (const s of order) if (!s.item.anchor) lower(s, 2);
  for (const s of order) if (s.item.anchor && s !== newest) lower(s, 1);
  for (const s of order) if (s.item.anchor && s !== newest) lower(s, 2);

  const lines: string[] = [];
  const ids: string[] = [];
  let others = 0;
  let shown = 0;
  for (const s of slots) {
    if (s.level === 2) {
      if (s.item.recallId !== undefined) ids.push(s.item.recallId);
      else others++;
      continue;
    }
    let text = s.level === 0 ? s.item.text : (s.item.brief ?? s.item.text);
    if (s === newest && total > budget && s.level === 0) {
      // the newest is the last to give way: shortened, never left out
      const note = truncatedNote(s.item.recallId);
      const room = s.cost[0] - (total - budget) - count(note);
      const cut = cutToTokens(text, room, count);
      if (cut) {
        total -= s.cost[0] - count(cut) - count(note);
        text = `${cut}${note}`;
      } else {
        total += s.cost[1] - s.cost[0];
        text = s.item.brief ?? text;
      }
    }
    lines.push(text);
    shown++;
  }
  // the list of ids itself must fit: past the budget, the oldest ids are counted instead
  while (ids.length > 0 && total > budget) {
    const id = fadeFromStart ? ids.shift()! : ids.pop()!;
    total -= count(id) + 1;
    others++;
  }
  const listed = listedLine(ids, others);
  if (shown === 0 && listed === '') return { text: '', shown: 0, listed: 0 };
  return { text: [head, ...lines, ...(listed ? [listed] : [])].join('\n'), shown, listed: ids.length + others };
}

/**
 * The whole ledger within `budget` tokens: each section within its share, the person's words
 * (the first section) getting what the others leave. '' when there is nothing to carry.
 */
export function renderLedger(
  derived: ReadonlyArray<{ section: LedgerSection; items: readonly LedgerItem[] }>,
  budget: number,
  count: Count,
): { text: string; sections: RenderedSection[] } {
  const withItems = derived.filter((d) => d.items.length > 0);
  if (withItems.length === 0 || budget <= 0) return { text: '', sections: [] };
  const room = budget - count(LEDGER_HEADER) - 2;
  const [first, ...rest] = withItems;
  const texts = new Map<string, string>();
  const sections: RenderedSection[] = [];
  let used = 0;
  for (const d of rest) {
    const r = renderSection(d.section, d.items, Math.floor(room * d.section.share), count, false);
    texts.set(d.section.id, r.text);
    sections.push({ id: d.section.id, title: d.section.title, shown: r.shown, listed: r.listed });
    used += r.text ? count(r.text) + 2 : 0;
  }
  const r = renderSection(first!.section, first!.items, room - used, count, first!.section.id === 'words');
  texts.set(first!.section.id, r.text);
  sections.unshift({ id: first!.section.id, title: first!.section.title, shown: r.shown, listed: r.listed });
  const body = withItems.map((d) => texts.get(d.section.id)!).filter(Boolean);
  return { text: body.length > 0 ? [LEDGER_HEADER, ...body].join('\n\n') : '', sections };
}
