// The ledger as one block of text within its budget: every section's items whole while they
// fit, then one line each, then listed by Recall id, the least important first. Nothing is
// dropped without a trace: what is not shown is listed by id, or counted.
import type { LedgerItem, LedgerSection, RenderedSection } from './types.js';

export type Count = (text: string) => number;

export const LEDGER_HEADER =
  '## Working state (ledger)\nDerived from the session log, not from the summary: it carries what the summary may have left out. Where they differ, this is right.';

/** 0 whole, 1 one line, 2 listed by id, 3 counted only. */
type Level = 0 | 1 | 2 | 3;

/**
 * Tokens of a text as the fitting estimates them: cheap (the ledger of a 5,000-message session
 * is fitted in milliseconds) and on the high side for prose; the rendered whole is then counted
 * exactly, and fitted again with a smaller budget when the estimate fell short.
 */
const estimate = (text: string): number => Math.ceil(text.length / 3.5) + 1;

const truncatedNote = (id: string | undefined): string => `\n[shortened here${id ? ` — Recall id ${id} has it whole` : ''}]`;

function listedLine(ids: readonly string[], others: number): string {
  const parts: string[] = [];
  if (ids.length > 0) parts.push(`Not shown here (read them with Recall id): ${ids.join(', ')}`);
  if (others > 0) parts.push(`${ids.length > 0 ? 'and ' : ''}${others} more not shown${ids.length > 0 ? ' (older; Recall search finds them)' : ''}`);
  return parts.join('; ');
}

/** Of the budget left for the items that give way, the share their Recall ids may take before the oldest are only counted. */
const ID_SHARE = 0.2;
/** The person's first and newest messages stay whole within this share of the section's budget. */
const ANCHOR_SHARE = 0.6;

/** Chooses each item's level within `budget` (estimated tokens). */
function fit(items: readonly LedgerItem[], budget: number, max: number, fadeFromStart: boolean): Level[] {
  const whole = items.map((i) => estimate(i.text));
  const brief = items.map((i, k) => (i.brief !== undefined ? estimate(i.brief) : whole[k]!));
  const idCost = items.map((i) => (i.recallId !== undefined ? estimate(i.recallId) : 0));
  const levels: Level[] = items.map((_, k) => (k < max ? 0 : i2(items[k]!)));
  const newestIndex = fadeFromStart ? items.length - 1 : 0;
  // the newest stays whole (cut in render if need be) unless it has a one-line form to give way to
  const anchors = items.map((i, k) => (i.anchor === true || (k === newestIndex && i.brief === undefined)) && k < max);
  const sum = (k: number): number => {
    const level = levels[k];
    return level === 0 ? whole[k]! : level === 1 ? brief[k]! : level === 2 ? idCost[k]! : 0;
  };
  let total = items.reduce((n, _, k) => n + sum(k), 0);
  if (total <= budget) return levels;
  // newest first: the items that give way keep their one line while there is room, then their id, then are counted
  const order = items.map((_, k) => k);
  if (fadeFromStart) order.reverse();
  // the anchors stay whole within ANCHOR_SHARE of the budget; past it, all but the newest go to one line
  let anchorCost = order.filter((k) => anchors[k]).reduce((n, k) => n + whole[k]!, 0);
  if (anchorCost > budget * ANCHOR_SHARE) {
    for (const k of order) {
      if (!anchors[k] || k === newestIndex) continue;
      levels[k] = 1;
      anchorCost += brief[k]! - whole[k]!;
    }
  }
  let room = budget - anchorCost;
  const middle = order.filter((k) => !anchors[k] && levels[k] === 0);
  const briefRoom = room - Math.max(0, Math.floor(room * ID_SHARE));
  let used = 0;
  // the person's words keep their one line middle-out: the session's early requests (its task,
  // its rules, what it asked before the long middle) as long as the latest; then ids, newest first
  if (fadeFromStart)
    for (const k of bothEnds(middle)) {
      if (used + brief[k]! > briefRoom) continue;
      levels[k] = 1;
      used += brief[k]!;
    }
  for (const k of middle) {
    if (fadeFromStart && levels[k] === 1) continue;
    if (!fadeFromStart && used + brief[k]! <= briefRoom) {
      levels[k] = 1;
      used += brief[k]!;
    } else if (items[k]!.recallId !== undefined && used + idCost[k]! <= room) {
      levels[k] = 2;
      used += idCost[k]!;
    } else levels[k] = 3;
  }
  room -= used;
  total = items.reduce((n, _, k) => n + sum(k), 0);
  if (total <= budget) return levels;
  // the anchors too, the oldest first; the newest is the last to give way (shortened in render)
  const anchorOrder = [...order].reverse().filter((k) => anchors[k] && k !== newestIndex);
  for (const to of [1, 2, 3] as const) {
    for (const k of anchorOrder) {
      if (total <= budget) return levels;
      if (levels[k]! >= to) continue;
      const before = sum(k);
      levels[k] = to === 2 && items[k]!.recallId === undefined ? 3 : to;
      total += sum(k) - before;
    }
  }
  return levels;
}

/** The list's ends first, working inwards: [a, b, c, d, e] → [a, e, b, d, c]. */
function bothEnds(list: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0, j = list.length - 1; i <= j; i++, j--) out.push(...(i === j ? [list[i]!] : [list[i]!, list[j]!]));
  return out;
}

const i2 = (item: LedgerItem): Level => (item.recallId !== undefined ? 2 : 3);

/** Cuts a text to about `tokens` (estimated). */
const cutTo = (text: string, tokens: number): string => (tokens <= 0 ? '' : text.slice(0, Math.max(0, Math.floor((tokens - 1) * 3.5))));

/**
 * One section within `budget` tokens (estimated); '' with nothing to show. `fadeFromStart`: the
 * items are oldest first and the oldest give way first (the person's words); otherwise newest
 * first and the last ones give way first.
 */
export function renderSection(
  section: Pick<LedgerSection, 'title' | 'note' | 'maxShown'>,
  items: readonly LedgerItem[],
  budget: number,
  fadeFromStart: boolean,
): { text: string; shown: number; listed: number } {
  if (items.length === 0) return { text: '', shown: 0, listed: 0 };
  const max = section.maxShown ?? Number.POSITIVE_INFINITY;
  let head = `### ${section.title}${section.note ? `\n${section.note}` : ''}`;
  let room = budget - estimate(head) - 24;
  let levels = fit(items, room, max, fadeFromStart);
  // short of room, the items matter more than the line saying what they are
  if (section.note && levels.some((l) => l > 0)) {
    const bare = `### ${section.title}`;
    const without = fit(items, budget - estimate(bare) - 24, max, fadeFromStart);
    if (without.reduce((n: number, l) => n + l, 0) < levels.reduce((n: number, l) => n + l, 0)) {
      head = bare;
      room = budget - estimate(bare) - 24;
      levels = without;
    }
  }
  const newestIndex = fadeFromStart ? items.length - 1 : 0;
  const lines: string[] = [];
  const ids: string[] = [];
  let others = 0;
  let used = 0;
  items.forEach((item, k) => {
    const level = levels[k]!;
    if (level === 2) ids.push(item.recallId!);
    else if (level === 3) others++;
    else {
      const text = level === 0 ? item.text : (item.brief ?? item.text);
      lines.push(text);
      used += estimate(text);
    }
    if (level === 2) used += estimate(item.recallId!);
  });
  // the newest, the last to give way: shortened to what is left, never left out
  if (used > room && levels[newestIndex] === 0) {
    const item = items[newestIndex]!;
    const at = fadeFromStart ? lines.length - 1 : 0;
    const note = truncatedNote(item.recallId);
    const cut = cutTo(item.text, estimate(item.text) - (used - room) - estimate(note));
    lines[at] = cut ? `${cut}${note}` : (item.brief ?? item.text);
  }
  const shown = lines.length;
  const listed = listedLine(ids, others);
  if (shown === 0 && listed === '') return { text: '', shown: 0, listed: 0 };
  return { text: [head, ...lines, ...(listed ? [listed] : [])].join('\n'), shown, listed: ids.length + others };
}

/**
 * The whole ledger within `budget` tokens: each section within its share, the person's words
 * (the first section) getting what the others leave. Fitted on estimates, then counted: over the
 * budget, it is fitted again with the excess taken off. '' when there is nothing to carry.
 * Counted line by line, each line once however many passes it takes (a ledger of thousands of
 * lines is counted in one go, not once a pass): the lines' tokens plus one per line break, which
 * errs high by about 2% against counting the whole text, never low (the tokenizers split at line
 * breaks). The exact count of the request is the gauge's business.
 */
export function renderLedger(
  derived: ReadonlyArray<{ section: LedgerSection; items: readonly LedgerItem[] }>,
  budget: number,
  countText: Count,
): { text: string; sections: RenderedSection[]; tokens: number } {
  const memo = new Map<string, number>();
  const count: Count = (text) => {
    const lines = text.split('\n');
    let n = lines.length - 1;
    for (const line of lines) {
      let c = memo.get(line);
      if (c === undefined) memo.set(line, (c = line === '' ? 0 : countText(line)));
      n += c;
    }
    return n;
  };
  let target = budget;
  for (let pass = 0; pass < 4; pass++) {
    const r = renderOnce(derived, target);
    if (r.text === '') break;
    const tokens = count(r.text);
    if (tokens <= budget) return { ...r, tokens };
    if (target <= 0) break;
    target -= tokens - budget + Math.ceil(budget * 0.02);
  }
  return minimalLedger(derived, budget, count);
}

/**
 * When no section fits its share (a tiny window, a budget eaten by a huge first message): one
 * line per section saying how many items it holds, so the model knows they exist and that
 * Recall reads them; '' only when even that does not fit.
 */
function minimalLedger(
  derived: ReadonlyArray<{ section: LedgerSection; items: readonly LedgerItem[] }>,
  budget: number,
  count: Count,
): { text: string; sections: RenderedSection[]; tokens: number } {
  const withItems = derived.filter((d) => d.items.length > 0);
  const lines = withItems.map((d) => `- ${d.section.title}: ${d.items.length}`);
  const text = ['## Working state (ledger)', 'Too large to show here; Recall search finds what it holds:', ...lines].join('\n');
  const tokens = withItems.length === 0 ? 0 : count(text);
  if (withItems.length === 0 || tokens > budget) return { text: '', sections: [], tokens: 0 };
  return { text, tokens, sections: withItems.map((d) => ({ id: d.section.id, title: d.section.title, shown: 0, listed: d.items.length })) };
}

function renderOnce(
  derived: ReadonlyArray<{ section: LedgerSection; items: readonly LedgerItem[] }>,
  budget: number,
): { text: string; sections: RenderedSection[] } {
  const withItems = derived.filter((d) => d.items.length > 0);
  if (withItems.length === 0 || budget <= 0) return { text: '', sections: [] };
  const room = budget - estimate(LEDGER_HEADER) - 2;
  const [first, ...rest] = withItems;
  const texts = new Map<string, string>();
  const sections: RenderedSection[] = [];
  let used = 0;
  for (const d of rest) {
    const r = renderSection(d.section, d.items, Math.floor(room * d.section.share), false);
    texts.set(d.section.id, r.text);
    sections.push({ id: d.section.id, title: d.section.title, shown: r.shown, listed: r.listed });
    used += r.text ? estimate(r.text) + 2 : 0;
  }
  const r = renderSection(first!.section, first!.items, room - used, first!.section.id === 'words');
  texts.set(first!.section.id, r.text);
  sections.unshift({ id: first!.section.id, title: first!.section.title, shown: r.shown, listed: r.listed });
  const body = withItems.map((d) => texts.get(d.section.id)!).filter(Boolean);
  return { text: body.length > 0 ? [LEDGER_HEADER, ...body].join('\n\n') : '', sections };
}
