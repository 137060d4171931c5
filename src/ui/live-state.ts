// The UI's state between events, held in small stores (see ui-store.ts): the transcript, the
// live turn (tools running, compaction, retries, queued prompts), the streamed reply, the status.
import type { CompactionTrigger } from '../history/compaction.js';
import type { TranscriptItem } from './transcript.js';
import type { ContextUsageView, SessionView } from '../protocol/views.js';

export interface TranscriptState {
  /** Bumped when a session is opened: the transcript starts over. */
  epoch: number;
  /** Append-only within an epoch; replaced (never mutated) on each append. */
  items: TranscriptItem[];
  /**
   * How many items at the start of `items` are already on the terminal: printed as text before
   * the app's first frame (TranscriptPrinter.printAhead), so <Static> prints only those after them.
   */
  printed?: number;
}

export interface RunningTool {
  id: string;
  name: string;
  summary: string;
  startedAt: number;
}

export interface LiveState {
  busy: boolean;
  /** When the session last became busy (a turn's clock starts later, at turn_start: hooks and @files come first). */
  busySince: number | null;
  /** What runs besides the model and tools, oldest first (hooks: "Running the UserPromptSubmit hook"); the status row names the newest. */
  activities: Array<{ label: string; startedAt: number }>;
  turn: { startedAt: number; outputTokens: number } | null;
  /** Tool calls the model is still writing. */
  writingTools: Array<{ id: string; name: string }>;
  running: RunningTool[];
  /** `background`: written while the session goes on; it leaves the prompt usable (isWorking ignores it) and has its own row. */
  compaction: { trigger: CompactionTrigger; focus?: string; tokensBefore: number; stage?: string; startedAt: number; background?: boolean } | null;
  retry: { text: string; until: number } | null;
  /** "No response yet, 30 s": the provider has sent nothing for a while. */
  waiting: string | null;
  /** Prompts typed while the agent worked, sent together when it is free. */
  queued: string[];
  /** The model is thinking: since when, and what it has shown of it so far. */
  thinking: { startedAt: number; text: string } | null;
}

export interface StreamState {
  /** The reply being streamed (raw: sanitized when shown). */
  text: string;
  /** How much of `text` has been printed into the transcript already (finished Markdown blocks). */
  committed: number;
  /** Characters streamed by the current model call, for the token estimate. */
  chars: number;
}

export const emptyStream = (): StreamState => ({ text: '', committed: 0, chars: 0 });

export interface StatusState {
  session: SessionView;
  usage: ContextUsageView;
}

/** Transient one-line message under the prompt ("Press Ctrl-C again to exit"); a notice is dimmed. */
export type Hint = { text: string; level: 'info' | 'warning' | 'notice' } | null;

export const emptyLive = (): LiveState => ({
  busy: false,
  busySince: null,
  activities: [],
  turn: null,
  writingTools: [],
  running: [],
  compaction: null,
  retry: null,
  waiting: null,
  queued: [],
  thinking: null,
});

export const isWorking = (l: LiveState): boolean => l.busy || l.turn !== null || (l.compaction !== null && l.compaction.background !== true);
