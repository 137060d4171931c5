// A compaction in the history's vocabulary: the receipt of an attempt (stored whether it was
// applied or not, shown in the transcript), and what an applied one appends to the log. The
// compaction engine plans it; the session's log commits it; the store keeps it.
import type { ProbeResults } from '../ledger/probes.js';
import type { RenderedSection } from '../ledger/types.js';
import type { Message, Usage } from '../llm/messages.js';
import type { CompactionBody, StepRecord } from './records.js';

export type CompactionTrigger = 'micro' | 'auto' | 'reactive' | 'manual';

/** One compaction attempt, as stored and as shown in the receipt. */
export interface CompactionRecord {
  id: string;
  trigger: CompactionTrigger;
  /** The user's focus text for a manual compaction. */
  focus?: string;
  status: 'applied' | 'failed' | 'ineffective';
  /** Why it failed or was not applied. */
  reason?: string;
  tokensBefore: number;
  tokensAfter: number;
  /** Messages moved out of the visible history (micro: tool outputs cleared). */
  archivedCount: number;
  /** Messages kept verbatim (pinned + tail). */
  preservedCount: number;
  summaryTokens: number;
  /** The checkpoint text (absent for micro and for failures). */
  summary?: string;
  /** How the summary was made: one call, chunked, after dropping tool outputs, or metadata only. */
  /** provider: OpenAI's responses.compact wrote an encrypted compaction item instead of a readable summary. ledger: no summary (the summarizer did not answer in time at the hard limit): the ledger and Recall handles carry the work. */
  method?: 'single' | 'chunked' | 'trimmed' | 'metadata' | 'none' | 'provider' | 'ledger';
  durationMs: number;
  model: string;
  /** Tokens the summarizer consumed. */
  usage: Usage;
  createdAt: number;
  /** What the working-state ledger carried and what the summary's probes found (LLM tiers with the ledger on). */
  report?: CompactionReport;
}

/** Stored with the record (compactions.report, JSON): what the person's compaction report shows beside the figures. */
export interface CompactionReport {
  ledger?: { tokens: number; sections: RenderedSection[] };
  probes?: ProbeResults;
  /** The first and last archived message (Recall ids). */
  archived?: { first: string; last: string };
}

/** A tool output that micro compaction cleared; the original goes to the archive. */
export interface ClearedOutput {
  /** Archive id, also written into the placeholder and into the block's `cleared` mark. */
  archiveId: string;
  messageId: string;
  toolUseId: string;
  toolName: string;
  /** The tool's key argument (command, path, pattern). */
  summary: string;
  content: string;
  isError: boolean;
  tokens: number;
}

/**
 * An applied compaction as the log takes it: the receipt (its id is the log record's), the
 * record's body (the view right after it, the blocks of the outputs it cleared), the messages
 * it adds (checkpoint, bridges: they enter the view only through `body.view`) and the originals
 * of the outputs it cleared (to the tool output archive). What it takes out of view, and the
 * history after it, follow from the body through the reducer.
 */
export interface CompactionCommit {
  record: CompactionRecord;
  body: CompactionBody;
  added: Message[];
  cleared: ClearedOutput[];
}

/** The log record a compaction appends. */
export const compactionEntry = (c: CompactionCommit): Extract<StepRecord, { kind: 'compaction' }> => ({ kind: 'compaction', id: c.record.id, body: c.body });
