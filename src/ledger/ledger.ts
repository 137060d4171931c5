// The working-state ledger: derived from the log (never from a summary), cumulative across
// compactions, and rendered byte for byte the same from the same log. It goes beside every
// checkpoint (compaction/headAssembly.ts) and feeds the summary's probes (ledger/probes.ts).
import { renderLedger, type Count } from './render.js';
import { isPersonMessage, personText } from './sections.js';
import { EDIT_TOOLS } from './sections.js';
import type { Ledger, LedgerFacts, LedgerInput, LedgerSection } from './types.js';
import type { Message } from '../llm/messages.js';

/** The ledger's share of the effective window, and its ceiling (docs/ledger.md, "Its budget"). */
export const LEDGER_SHARE = 0.06;
export const LEDGER_MAX_TOKENS = 10_000;

/** On a small window the ledger still gets this many tokens, within LEDGER_SMALL_SHARE of it: below that it carries next to nothing. */
export const LEDGER_MIN_TOKENS = 800;
export const LEDGER_SMALL_SHARE = 0.15;

/** The ledger's budget for a window whose effective input is `effective` tokens. */
export const ledgerBudget = (effective: number): number =>
  Math.min(LEDGER_MAX_TOKENS, Math.floor(Math.max(effective * LEDGER_SHARE, Math.min(LEDGER_MIN_TOKENS, effective * LEDGER_SMALL_SHARE))));

/** The facts a summary is checked against. */
export function ledgerFacts(input: LedgerInput): LedgerFacts {
  const failed = new Set<string>();
  for (const m of input.messages) for (const b of m.blocks) if (b.type === 'tool_result' && b.isError) failed.add(b.toolUseId);
  const modified: string[] = [];
  const failures = new Map<string, boolean>();
  for (const m of input.messages) {
    for (const b of m.blocks) {
      if (b.type !== 'tool_use') continue;
      const d = input.describe(b.name, b.input) || String(b.input.command ?? b.input.path ?? '');
      const key = d || b.name;
      failures.set(key, failed.has(b.id));
      if (failed.has(b.id) || !EDIT_TOOLS.includes(b.name)) continue;
      const p = b.input.path ?? b.input.file_path;
      if (typeof p === 'string' && p && !modified.includes(p)) modified.push(p);
    }
  }
  // the latest of the person's messages, when no later one stays in view
  const latest = input.messages.findLast(isPersonMessage);
  return {
    modified,
    failures: [...failures.entries()].filter(([, f]) => f).map(([k]) => k),
    ...(latest && !input.kept.has(latest.id) ? { pendingRequest: personText(latest) } : {}),
  };
}

/** Derives the ledger of `input` with `sections` within `budget` tokens. */
export function deriveLedger(input: LedgerInput, sections: readonly LedgerSection[], budget: number, count: Count): Ledger {
  const derived = sections.map((section) => ({ section, items: section.derive(input) }));
  const r = renderLedger(derived, budget, count);
  return { text: r.text, tokens: r.tokens, sections: r.sections, facts: ledgerFacts(input) };
}

/** The messages a ledger covers: what earlier compactions archived, then the history, each once, in log order. */
export function ledgerMessages(archived: readonly Message[], history: readonly Message[]): Message[] {
  const inHistory = new Set(history.map((m) => m.id));
  return [...archived.filter((m) => !inHistory.has(m.id)), ...history];
}
