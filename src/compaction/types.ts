import type { ProbeResults } from '../ledger/probes.js';
import type { RenderedSection } from '../ledger/types.js';
import type { Message, Usage } from '../llm/messages.js';

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
  /** provider: OpenAI's responses.compact wrote an encrypted compaction item instead of a readable summary. */
  method?: 'single' | 'chunked' | 'trimmed' | 'metadata' | 'none' | 'provider';
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
 * What a successful compaction changes. The session applies it in one step and the store in
 * one transaction: `messages` becomes the visible history, `archivedIds` are marked archived
 * by `record.id`, `cleared` go to the tool output archive, `added` are new messages (checkpoint,
 * restored context) and `replaced` are existing messages whose blocks changed (micro).
 */
export interface CompactionChange {
  record: CompactionRecord;
  messages: Message[];
  archivedIds: string[];
  added: Message[];
  replaced: Message[];
  cleared: ClearedOutput[];
}

export type CompactionEvent =
  | { type: 'compaction_start'; trigger: CompactionTrigger; focus?: string; tokensBefore: number }
  | { type: 'compaction_progress'; trigger: CompactionTrigger; stage: string }
  | { type: 'compaction_end'; record: CompactionRecord }
  | { type: 'compaction_skipped'; trigger: CompactionTrigger; reason: string };
