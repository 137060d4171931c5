// The session's side of a background compaction (compaction/background.ts) outside the loop's
// boundaries: /compact in the TUI starts one and returns at once, Esc or /compact cancel stops
// it, a job that settles while the session is at rest is recorded or swapped in right away
// (through the compactor's one commit path), and a print run's end waits for one that is due.
// A prompt that arrives while such a step runs goes out with the full history: the step's swap
// waits for that prompt's own boundary.
import type { CompactionEngine, CompactionOutcome } from '../compaction/engine.js';
import type { CompactionContext } from '../compaction/engineDeps.js';
import type { CompactionRecord } from '../history/compaction.js';
import type { Message } from '../llm/messages.js';
import type { CompactionEvent } from '../protocol/events.js';
import type { ContextUsageView } from '../protocol/views.js';
import { debug } from '../log.js';

/** Steps a settle takes at most: the swap's warm-up, then the swap. */
const SETTLE_STEPS = 3;

export interface RestingDeps {
  engine: () => CompactionEngine;
  ctx: () => CompactionContext;
  /** The compactor's commit path (compactor.ts). */
  compaction: (run: (emit: (e: CompactionEvent) => void) => Promise<CompactionOutcome | CompactionOutcome[]>) => Promise<CompactionRecord[]>;
  messages: () => readonly Message[];
  busy: () => boolean;
  emit: (e: CompactionEvent | { type: 'context'; usage: ContextUsageView }) => void;
  usage: () => ContextUsageView;
}

export class RestingCompaction {
  /** The step at rest in progress, awaited before the next model call. */
  private resting: Promise<unknown> | undefined;
  /** A job settled while the session was busy. */
  private missed = false;
  /** What the last context event of ours showed of the job. */
  private shown = 'null';

  constructor(private readonly deps: RestingDeps) {}

  /** /compact [focus] in the TUI: the summary is written in the background and swapped in at the next boundary; false where compaction.background is off. */
  async start(focus: string | undefined): Promise<boolean> {
    const started = await this.deps.engine().startManual(this.deps.ctx(), focus, (e) => this.deps.emit(e));
    // the gauge and the status line show the job in flight
    if (started) this.showPending();
    return started;
  }

  /** Esc, /compact cancel: stops the background compaction in flight; false when there was none. */
  cancel(): boolean {
    const pending = this.deps.engine().pending();
    if (!pending || !this.deps.engine().cancelBackground()) return false;
    this.deps.emit({ type: 'compaction_skipped', trigger: pending.trigger, reason: 'cancelled: the history stays as it is' });
    this.deps.emit({ type: 'context', usage: this.deps.usage() });
    return true;
  }

  /** Resolves once no step at rest runs (before a model call). */
  async quiet(): Promise<void> {
    await this.resting;
  }

  /**
   * The end of a print run: a background compaction that is due (manual, or past the auto
   * threshold) is waited for under its deadline, warmed and swapped in, so the next run starts
   * compacted; so is an automatic one whose summary is already written (its cost is paid: each
   * `-p --continue` run past the prefire point would otherwise pay for a summary it throws away).
   * One still running and not due is cancelled. Nothing is left running.
   */
  async settle(): Promise<void> {
    // a step at rest the turn's end started finishes before the run's result
    await this.resting;
    const engine = this.deps.engine();
    const pending = engine.pending();
    if (!pending) return;
    if (pending.trigger === 'manual' || pending.ready || this.deps.usage().tokens >= engine.thresholds().auto)
      for (let step = 0; step < SETTLE_STEPS && (await engine.settleBackground()); step++) await this.chain(true);
    // one not due (or not settled) is cancelled; its live row (stream-json's "compacting" status) is closed
    const left = engine.pending();
    if (left && engine.cancelBackground())
      this.deps.emit({
        type: 'compaction_skipped',
        trigger: left.trigger,
        reason: 'cancelled: the run ended before the summary was due; the history stays as it is',
      });
  }

  /** The session ends: the background request is cancelled. */
  close(): void {
    this.deps.engine().cancelBackground();
  }

  /** A background compaction (or its warm-up) settled: at rest, it is recorded or swapped in now. */
  settled(): void {
    // the gauge shows the summary ready (or the job gone), mid-turn too
    this.showPending();
    // busy: the turn's next boundary takes it, or its end (rested) when it has none
    if (this.deps.busy()) this.missed = true;
    else void this.chain();
  }

  /** The session came to rest (a turn or an exclusive command ended): a job that settled meanwhile is taken up now. */
  rested(): void {
    if (!this.missed) return;
    this.missed = false;
    void this.chain();
  }

  /** Steps at rest run one after the other (a settle's and a settled job's could otherwise both commit one swap). */
  private chain(ending = false): Promise<unknown> {
    const previous = this.resting;
    const next = (async () => {
      await previous;
      if (!this.deps.busy()) await this.step(ending);
    })().catch((e: unknown) => debug('background compaction at rest failed', { error: e instanceof Error ? e.message : String(e) }));
    this.resting = next;
    return next;
  }

  /** One boundary at rest; a prompt that arrived meanwhile makes the swap wait for its own boundary. */
  private async step(ending: boolean): Promise<void> {
    const history = this.deps.messages();
    const [count, last] = [history.length, history.at(-1)?.id];
    await this.deps.compaction(async (emit) => {
      const outcomes = await this.deps.engine().atRest(this.deps.ctx(), emit, ending);
      const now = this.deps.messages();
      const moved = now.length !== count || now.at(-1)?.id !== last;
      return outcomes.filter((o) => !(moved && o.commit));
    });
    this.showPending();
  }

  /** A context event when what the gauge shows of the job changed (its warm-up's end, a step that did nothing, are no news). */
  private showPending(): void {
    const usage = this.deps.usage();
    const shown = JSON.stringify(usage.compacting ?? null);
    if (shown === this.shown) return;
    this.shown = shown;
    this.deps.emit({ type: 'context', usage });
  }
}
