// The compactor: keeping the next request within the window. It owns the compaction engine (made
// again when the turn's frame takes another model, effort or window), the gauge, the provider's
// real window and the silent-overflow latch; it is the one commit path for compactions: the engine
// plans, the log commits once, the engine re-anchors on what was committed, then compaction_end is
// announced. What the request carries is the turn's frame's (turnFrame.ts), read when needed.
import type { LoopHost } from '../agent/loop.js';
import type { CompactionEngine, CompactionOutcome, EngineDeps } from '../compaction/engine.js';
import type { CompactionContext } from '../compaction/engineDeps.js';
import type { TokenCounter } from '../compaction/tokens.js';
import type { Config } from '../config/config.js';
import type { CompactionRecord } from '../history/compaction.js';
import type { OverflowInfo, ProviderError } from '../llm/errors.js';
import { totalInputTokens, type Message, type Usage } from '../llm/messages.js';
import type { Provider } from '../llm/provider.js';
import { debug, debugEnabled } from '../log.js';
import type { CompactionEvent } from '../protocol/events.js';
import type { ContextUsageView } from '../protocol/views.js';
import type { Capabilities } from './capabilities.js';
import { compactionEngine, otherProvider } from './compactionEngine.js';
import { RestingCompaction } from './restingCompaction.js';
import type { SessionLog } from './sessionLog.js';
import type { SessionState } from './state.js';
import type { TurnFrames } from './turnFrame.js';
import { fmtInt } from '../tools/format.js';

/** Replies shorter than this are not useful; a learned small window still leaves this much. */
const MIN_REPLY_TOKENS = 1_024;

export interface CompactorDeps {
  sessionId: string;
  log: SessionLog;
  /** The turn's frame: what the next request carries, and where a learned window goes. */
  frames: TurnFrames;
  counter: TokenCounter;
  /** Creates a provider for another provider family (a compaction.model of the other family); `purpose` names who asked. */
  providerFor?: ((config: Config, purpose?: string) => Provider) | undefined;
  /** Engine settings for tests and benchmarks: its clock, the micro compaction policy. */
  engine?: Pick<EngineDeps, 'now' | 'microPolicy'> | undefined;
  emit: (e: CompactionEvent | { type: 'context'; usage: ContextUsageView }) => void;
  notice: (level: 'info' | 'warning' | 'error', text: string) => void;
  /** What a summarizer consumed is billed like any request (/cost). */
  bill: (model: string, usage: Usage) => void;
  saveState: () => void;
  /** The requests' cache key (the session's id; a sub-agent's is its parent's and agent's). */
  cacheKey: string;
  /** A turn or an exclusive command runs: a background compaction that settles waits for the next boundary. */
  busy: () => boolean;
  /**
   * The session's capabilities: what they tell a summary request (PreCompact hooks) and put back
   * after it (loaded skills), their slices of the working-state ledger, and PostCompact hooks.
   */
  caps: Capabilities;
}

export class Compactor {
  private engine: CompactionEngine;
  private reactiveThisTurn = 0;
  /** Set when a reply showed the server silently truncated the prompt: compact before the next call. */
  private silentOverflow: OverflowInfo | undefined;
  private providerWindow: { model: string; tokens: number } | undefined;
  /** The background compaction: /compact in the TUI, Esc, a print run's end, the swap at rest (restingCompaction.ts). */
  readonly background: RestingCompaction;

  constructor(
    private readonly deps: CompactorDeps,
    state: SessionState,
  ) {
    this.background = new RestingCompaction({
      engine: () => this.engine,
      ctx: () => this.ctx(),
      compaction: (run) => this.compaction(run),
      messages: () => this.deps.log.messages(),
      busy: deps.busy,
      emit: deps.emit,
      usage: () => this.usage(),
    });
    const { config, provider } = deps.frames.current;
    this.engine = this.makeEngine(config, provider, state.compaction);
    if (state.pendingOverflow) this.silentOverflow = state.pendingOverflow;
    if (state.providerWindow?.model === config.model.name) this.adoptProviderWindow(state.providerWindow.tokens, true);
  }

  /** What the compactor keeps in the session's saved state. */
  state(): Pick<SessionState, 'compaction' | 'providerWindow' | 'pendingOverflow'> {
    return {
      compaction: this.engine.state(),
      ...(this.providerWindow ? { providerWindow: this.providerWindow } : {}),
      ...(this.silentOverflow ? { pendingOverflow: this.silentOverflow } : {}),
    };
  }

  usage(): ContextUsageView {
    return this.engine.usage(this.ctx());
  }

  /** The gauge as it stands, to the front ends (the frame changed: its tools, model or effort). */
  showUsage(): void {
    this.deps.emit({ type: 'context', usage: this.usage() });
  }

  /** The auto-compaction threshold and the window, for /uncompact's fit check. */
  limits(): { auto: number; contextWindow: number } {
    const t = this.engine.thresholds();
    return { auto: t.auto, contextWindow: t.contextWindow };
  }

  /** Tokens the next request would carry with this history instead of the current one (the tokenizer is loaded first). */
  async tokensWith(history: readonly Message[]): Promise<number> {
    await this.deps.counter.load();
    return this.engine.tokensIf({ ...this.ctx(), history });
  }

  /** A turn starts: its reactive compactions are counted from none. */
  turnStarts(): void {
    this.reactiveThisTurn = 0;
  }

  turnCompleted(): void {
    this.engine.turnCompleted();
  }

  /** The history was replaced outside compaction (a rewind, a revert): the next count starts from estimates. */
  historyReplaced(): void {
    this.engine.historyReplaced();
  }

  /**
   * The engine for another model, effort or window, its state carried over; made before the frame
   * changes, so what can fail (a summarizer of another provider family without its key) fails first.
   */
  engineFor(config: Config, provider: Provider): CompactionEngine {
    return this.makeEngine(config, provider, this.engine.state());
  }

  /** An engine over this session's frame and log, from its saved state. */
  private makeEngine(config: Config, provider: Provider, state: unknown): CompactionEngine {
    const frames = this.deps.frames;
    return compactionEngine(
      {
        deps: this.deps,
        compactable: frames.compactable,
        system: () => frames.current.system,
        toolSpecs: () => frames.current.specs,
        tools: () => frames.current.tools,
        otherProvider: (c, purpose) => otherProvider(this.deps.providerFor, c, purpose),
        backgroundSettled: () => this.background.settled(),
        cwd: () => frames.current.config.cwd,
        instructions: () => frames.current.config.compaction.instructions,
      },
      state,
      config,
      provider,
    );
  }

  /** The frame took another model, effort or window: the engine made for it (engineFor) takes over. */
  follow(engine: CompactionEngine): void {
    this.engine = engine;
    this.showUsage();
  }

  /** /compact [focus]: waits for the summary (print mode, ACP). */
  async manual(focus: string | undefined, signal: AbortSignal): Promise<CompactionRecord> {
    const [record] = await this.compaction((emit) => this.engine.manual(this.ctx(), focus, signal, emit));
    return record!;
  }

  /**
   * Whether a prompt can be sent at all: beside it, a request always carries the system prompt, the tool schemas and the pinned
   * messages, and no compaction can shrink those or the prompt (it is kept verbatim). When they do not fit the window's input share, the figures.
   */
  async promptTooLarge(msg: Message): Promise<{ promptTokens: number; fixedTokens: number; limit: number } | undefined> {
    const { counter } = this.deps;
    const { system, specs } = this.deps.frames.current;
    const limit = this.engine.thresholds().effective;
    const pinned = this.deps.log.messages().filter((m) => m.pinned);
    // the cheap upper bound settles almost every prompt without loading the tokenizer
    if (counter.boundRequest(system, specs, [...pinned, msg]) <= limit) return undefined;
    await counter.load();
    const ratio = this.engine.ratio();
    const promptTokens = Math.round(ratio * counter.countMessage(msg));
    const fixedTokens = Math.round(ratio * (counter.countText(system) + counter.countToolSpecs(specs) + counter.countMessages(pinned)));
    return promptTokens + fixedTokens > limit ? { promptTokens, fixedTokens, limit } : undefined;
  }

  /** What the loop asks of the session: the history, the frame's system prompt and reply limit, and the hooks around each model call. */
  loopHost(): LoopHost {
    const { log, frames } = this.deps;
    return {
      history: () => log.messages(),
      append: (msg) => log.append(msg),
      systemPrompt: () => frames.current.system,
      maxOutputTokens: () => frames.current.config.maxOutputTokens,
      beforeModelCall: async (signal) => {
        await this.background.quiet();
        const overflow = this.silentOverflow;
        if (overflow) {
          this.silentOverflow = undefined;
          await this.compaction((emit) => this.engine.reactive(this.ctx(), overflow, 1, signal, emit));
        }
        if (debugEnabled()) {
          // the compaction decision's inputs: where the next request stands against the thresholds
          const t = this.engine.thresholds();
          debug('context before call', { tokens: this.usage().tokens, micro: t.micro, auto: t.auto, blocking: t.blocking, effective: t.effective });
        }
        await this.compaction((emit) => this.engine.beforeCall(this.ctx(), signal, emit));
      },
      noteOverflow: (err) => this.adoptProviderWindow(err.overflow?.limit),
      recoverFromOverflow: async (err, signal) => this.recoverFromOverflow(err, signal),
      afterResponse: (req, done) => {
        const check = this.engine.observeResponse({ system: req.system, tools: req.tools, messages: req.messages }, totalInputTokens(done.usage));
        if (check.silentOverflow) {
          this.deps.notice('warning', `Context overflow: ${check.silentOverflow}. The conversation will be compacted before the next request.`);
          if (check.overflow) {
            this.silentOverflow = check.overflow;
            this.adoptProviderWindow(check.overflow.limit);
          }
        }
      },
    };
  }

  // ---- the commit path ---------------------------------------------------------------

  /**
   * Runs one engine call and commits each attempt it returns, in order: an applied change goes
   * to the log (store first, then memory) and the engine re-anchors on it; a change the
   * database refuses ends as a failed attempt. Each attempt is announced once, after that.
   */
  private async compaction(run: (emit: (e: CompactionEvent) => void) => Promise<CompactionOutcome | CompactionOutcome[]>): Promise<CompactionRecord[]> {
    const result = await run((e) => this.deps.emit(e));
    const outcomes = Array.isArray(result) ? result : [result];
    const records = outcomes.map((o) => {
      if (o.record.model && totalInputTokens(o.record.usage) + o.record.usage.outputTokens > 0) this.deps.bill(o.record.model, o.record.usage);
      const record = this.commit(o);
      if (!o.skipped) this.deps.emit({ type: 'compaction_end', record });
      return record;
    });
    for (const r of records) if (r.trigger !== 'micro') await this.deps.caps.afterCompaction(r);
    return records;
  }

  private commit(outcome: CompactionOutcome): CompactionRecord {
    const { record, commit } = outcome;
    const { log, frames } = this.deps;
    if (!commit) {
      log.recordFailure(record);
      return record;
    }
    const before = log.messages();
    const refused = log.commitCompaction(commit);
    if (refused !== undefined) {
      const failed: CompactionRecord = { ...record, status: 'failed', reason: `${refused}; nothing was changed` };
      delete failed.summary;
      log.recordFailure(failed);
      return failed;
    }
    if (record.trigger !== 'micro') frames.rebuildSystem();
    const { system, specs, config } = frames.current;
    this.engine.committed(record, log.messages(), { system, tools: specs });
    if (record.trigger !== 'micro') for (const m of this.deps.caps.reattach(before, log.messages(), config.model.contextWindow)) log.append(m);
    this.deps.saveState();
    this.showUsage();
    return record;
  }

  /** Reactive compaction; the engine counts the attempts of this turn against maxReactiveAttempts. */
  private async recoverFromOverflow(err: ProviderError, signal: AbortSignal): Promise<boolean> {
    const attempt = ++this.reactiveThisTurn;
    const [record] = await this.compaction((emit) => this.engine.reactive(this.ctx(), err.overflow, attempt, signal, emit));
    return record?.status === 'applied';
  }

  private ctx(): CompactionContext {
    const { system, specs } = this.deps.frames.current;
    return { system, tools: specs, history: this.deps.log.messages() };
  }

  /**
   * The provider stated a window smaller than the model table or .agentrc says (a local server
   * started with a small context, a proxy): believe it for the rest of the session, so the
   * gauge and the compaction thresholds follow the real limit.
   */
  private adoptProviderWindow(limit: number | undefined, resumed = false): void {
    const { config, provider } = this.deps.frames.current;
    const model = config.model;
    if (limit === undefined || limit <= 0 || limit >= model.contextWindow) return;
    const maxOutput = Math.min(config.maxOutputTokens, Math.max(MIN_REPLY_TOKENS, Math.floor(limit / 4)));
    const next: Config = { ...config, model: { ...model, contextWindow: limit }, maxOutputTokens: maxOutput };
    this.deps.frames.configure(next);
    this.providerWindow = { model: model.name, tokens: limit };
    this.engine = this.engineFor(next, provider);
    if (resumed) return;
    this.deps.notice(
      'warning',
      `The provider says ${model.name} has a ${fmtInt(limit)}-token context window (configured: ${fmtInt(model.contextWindow)}). ` +
        `Using ${fmtInt(limit)} for this session, replies up to ${fmtInt(maxOutput)} tokens. ` +
        `Set models["${model.name}"].contextWindow in .agentrc to make it permanent.`,
    );
  }
}
