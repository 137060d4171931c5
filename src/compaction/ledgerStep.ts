// The ledger's step in an LLM compaction: derive it from the log (what earlier compactions
// archived, then the history as it stands) within its budget. The block goes beside the
// checkpoint (checkpoint.ts); its facts are what the summary is checked against.
import type { Message } from '../llm/messages.js';
import { deriveLedger, ledgerBudget, ledgerMessages } from '../ledger/ledger.js';
import type { Ledger, LedgerSection } from '../ledger/types.js';
import { toolKeyArgument, type DescribeToolUse } from './micro.js';
import type { TokenCounter } from './tokens.js';

/** Where the ledger's inputs come from (the session: its store and the registered sections). */
export interface LedgerSource {
  /** The messages earlier compactions archived, in log order (not those a rewind took back). */
  archived(): readonly Message[];
  sections(): readonly LedgerSection[];
}

/** The ledger never takes more than this share of the restored-context budget (the recent requests' old share: it carries them now). */
const RESTORE_SHARE = 0.5;

/** The ledger's budget: its share of the effective window, within half of the restored-context budget. */
export const ledgerTokens = (effective: number, restoreTokens: number): number => Math.min(ledgerBudget(effective), Math.floor(restoreTokens * RESTORE_SHARE));

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
