// The ledger's step in an LLM compaction: derive it from the log (what earlier compactions
// archived, then the history as it stands) within its budget. The block goes beside the
// checkpoint (checkpoint.ts); its facts are what the summary is checked against.
import { addUsage, type Message } from '../llm/messages.js';
import { omittedAppendix, probeSummary, retryInstruction, type ProbeResults } from '../ledger/probes.js';
import { deriveLedger, ledgerBudget, ledgerMessages } from '../ledger/ledger.js';
import type { Ledger, LedgerFacts, LedgerSection } from '../ledger/types.js';
import type { SummaryResult } from './summarize.js';
import { toolKeyArgument, type DescribeToolUse } from './micro.js';
import type { TokenCounter } from './tokens.js';

/** Where the ledger's inputs come from (the session: its store and the registered sections). */
export interface LedgerSource {
  /** The messages earlier compactions archived, in log order (not those a rewind took back). */
  archived(): readonly Message[];
  sections(): readonly LedgerSection[];
}

/**
 * The ledger's budget: its share of the effective window (ledger.ts). It comes out of the
 * restored-context budget (the recent requests' old place: it carries them now), the re-read
 * files getting the rest; on a small window, where the system prompt and tools leave that
 * budget little or nothing, the ledger keeps its share all the same: it is the working state.
 */
export const ledgerTokens = (effective: number): number => ledgerBudget(effective);

export function compactionLedger(
  source: LedgerSource,
  history: readonly Message[],
  kept: readonly Message[],
  budget: number,
  counter: TokenCounter,
  describe: DescribeToolUse | undefined,
): Ledger {
  const messages = ledgerMessages(source.archived(), history);
  return deriveLedger({ messages, kept: new Set(kept.map((m) => m.id)), describe: describe ?? toolKeyArgument }, source.sections(), budget, (t) =>
    counter.countText(t),
  );
}

/** The sections every checkpoint must have to go on from: where the work is going, and what comes next. */
export const PROBED_SECTIONS: readonly string[] = ['Goal', 'Next Steps'];

/**
 * Probes the summary against the ledger's facts; a miss gets one retry naming what is missing
 * (the draft that misses less is kept), and what the kept draft still misses is appended from
 * the ledger ("Omitted by the summary"). A failed retry keeps the first draft; a cancel throws.
 */
export async function checkSummary(
  summary: SummaryResult,
  facts: LedgerFacts,
  retry: (instruction: string) => Promise<SummaryResult>,
  progress: (stage: string) => void,
  signal: AbortSignal,
): Promise<{ summary: SummaryResult; probes: ProbeResults }> {
  const first = probeSummary(summary.text, facts, PROBED_SECTIONS);
  let kept = summary;
  let omitted = first.missed;
  const retried = first.missed.length > 0 && summary.method !== 'metadata' && summary.method !== 'provider' && summary.method !== 'ledger';
  if (retried) {
    progress(`the summary left out ${first.missed.length} fact${first.missed.length === 1 ? '' : 's'} of the ledger: asking again`);
    try {
      const again = await retry(retryInstruction(first.missed));
      const second = probeSummary(again.text, facts, PROBED_SECTIONS);
      const usage = addUsage(summary.usage, again.usage);
      if (second.missed.length <= first.missed.length) {
        kept = { ...again, usage, requests: summary.requests + again.requests };
        omitted = second.missed;
      } else kept = { ...summary, usage, requests: summary.requests + again.requests };
    } catch (e) {
      if (signal.aborted) throw e;
      progress(`the second summary failed (${e instanceof Error ? e.message : String(e)}): keeping the first`);
    }
  }
  const appendix = omittedAppendix(omitted);
  if (appendix) kept = { ...kept, text: `${kept.text.trim()}\n\n${appendix}` };
  return { summary: kept, probes: { probed: first.probed, missed: first.missed, retried, omitted } };
}
