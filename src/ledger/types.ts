import type { Message } from '../llm/messages.js';

/** What every section of the ledger derives from: the log, never a summary. */
export interface LedgerInput {
  /**
   * The session's messages in log order: those earlier compactions archived, then the history
   * as it stands (checkpoints and the agent's own notes are skipped by the sections).
   */
  messages: readonly Message[];
  /** Messages that stay in view after the compaction (pinned, the kept tail): their words are in the context already. */
  kept: ReadonlySet<string>;
  /** A tool call's key argument (the command, the path); '' when none. */
  describe: (name: string, input: Record<string, unknown>) => string;
}

/**
 * One fact of a section. `text` is how it reads whole; `brief` a one-line form for when the
 * budget is short; `recallId` where the whole can be read again when even the brief form
 * does not fit (the item is then listed by that id, never dropped without a trace).
 */
export interface LedgerItem {
  text: string;
  brief?: string;
  recallId?: string;
  /** Kept whole as long as anything else can give way (the person's first and newest words). */
  anchor?: boolean;
}

/**
 * A slice of the working state. Capabilities bring theirs through the seam (their `ledger`):
 * the task list and plan, invoked skills, background commands. `derive` must be a pure function of the
 * input: the ledger is derived again, byte for byte, whenever it is needed.
 */
export interface LedgerSection {
  /** Stable key: the same id registered twice replaces the first. */
  id: string;
  /** The section's heading (without the ###). */
  title: string;
  /** Lower comes first. Built-in: the person's words 10, files 20, failures 30, spilled outputs 40. */
  order: number;
  /** Share of the ledger's budget the section may use; what sections leave unused goes to the person's words. */
  share: number;
  /** Items past this many are listed by Recall id (or counted) rather than shown. */
  maxShown?: number;
  /** One line under the heading saying what the items are (optional). */
  note?: string;
  derive(input: LedgerInput): LedgerItem[];
}

/** A section as it was rendered: what it carried and what it left to Recall. */
export interface RenderedSection {
  id: string;
  title: string;
  /** Items shown whole or as one line. */
  shown: number;
  /** Items listed by Recall id (or counted) only. */
  listed: number;
}

/** The ledger block that goes beside the checkpoint, and what it holds. */
export interface Ledger {
  /** The block's text; '' when there is nothing to carry. */
  text: string;
  tokens: number;
  sections: RenderedSection[];
  /** Facts the probes of a summary check: see ledger/facts.ts. */
  facts: LedgerFacts;
}

/** The facts of the ledger a summary is expected to keep (checked by the probes). */
export interface LedgerFacts {
  /** Files changed, first-change order. */
  modified: string[];
  /** The person's latest message, when it is archived (nothing the person said since stays in view): what the work continues from. */
  pendingRequest?: string;
  /** Standing failures: the command or tool call as described. */
  failures: string[];
}
