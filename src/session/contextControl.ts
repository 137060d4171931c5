// The context controller: what the next request carries and keeping it within the window.
// It owns the compaction engine, the system prompt, the provider's real window and the
// silent-overflow latch; it is the one commit path for compactions: the engine plans, the log
// commits once, the engine re-anchors on what was committed, then compaction_end is announced.
import type { LoopHost } from '../agent/loop.js';
import { loadInstructions, renderInstructions, type InstructionFile } from '../agent/instructions.js';
import { buildSystemPrompt } from '../agent/systemPrompt.js';
import type { CompactionEngine, CompactionOutcome, EngineDeps } from '../compaction/engine.js';
import { compactionEngine } from './compactionEngine.js';
import { RestingCompaction } from './restingCompaction.js';
import type { TokenCounter } from '../compaction/tokens.js';
import type { CompactionEvent } from '../protocol/events.js';
import type { CompactionRecord } from '../history/compaction.js';
import { withEffort, withModel, type Config } from '../config/config.js';
import { debug, debugEnabled } from '../log.js';
import type { OverflowInfo, ProviderError } from '../llm/errors.js';
import { totalInputTokens, type Message, type Usage } from '../llm/messages.js';
import type { Effort, Provider, ToolSpec } from '../llm/provider.js';
import { traitsOf } from '../tools/kinds.js';
import { toolSpec, type AnyTool } from '../tools/types.js';
import type { ContextUsageView } from '../protocol/views.js';
import type { SessionLog } from './sessionLog.js';
import type { SessionState } from './state.js';
import type { Capabilities } from './capabilities.js';

type ToolSet = NonNullable<ReturnType<Capabilities['toolSet']>>;

/** Replies shorter than this are not useful; a learned small window still leaves this much. */
const MIN_REPLY_TOKENS = 1_024;

export interface ContextDeps {
  sessionId: string;
  log: SessionLog;
  tools: readonly AnyTool[];
  counter: TokenCounter;
  /** Creates a provider for another provider family (/model, a compaction.model of the other family); `purpose` names who asked. */
  providerFor?: ((config: Config, purpose?: string) => Provider) | undefined;
  /** Engine settings for tests and benchmarks: its clock, the micro compaction policy. */
  engine?: Pick<EngineDeps, 'now' | 'microPolicy'> | undefined;
  emit: (e: CompactionEvent | { type: 'context'; usage: ContextUsageView }) => void;
  notice: (level: 'info' | 'warning' | 'error', text: string) => void;
  /** What a summarizer consumed is billed like any request (/cost). */
  bill: (model: string, usage: Usage) => void;
  saveState: () => void;
  /** A child session's role: its agent's system prompt, in place of the main one's opening. */
  role?: string;
  /** The requests' cache key (the session's id; a sub-agent's is its parent's and agent's). */
  cacheKey: string;
  /** A turn or an exclusive command runs: a background compaction that settles waits for the next boundary. */
  busy: () => boolean;
  /**
   * The session's capabilities: their system-prompt sections, their turn-start hooks, what they
   * tell a summary request (PreCompact hooks) and put back after it (loaded skills), their
   * slices of the working-state ledger beside the registry's, and PostCompact hooks.
   */
  caps: Capabilities;
}

export class ContextControl {
  private cfg: Config;
  private prov: Provider;
  private engine: CompactionEngine;
  private system: string;
  private instructions: InstructionFile[] = [];
  private toolSpecs: ToolSpec[];
  private extra: ToolSet = { tools: [], system: '' };
  /** Names of tools whose old results micro compaction may clear: the built-in ones, and every extra one seen (the engine reads this list). */
  private readonly compactable: string[] = [];
  private reactiveThisTurn = 0;
  /** Set when a reply showed the server silently truncated the prompt: compact before the next call. */
  private silentOverflow: OverflowInfo | undefined;
  private providerWindow: { model: string; tokens: number } | undefined;
  private readonly rest: RestingCompaction;

  constructor(
    private readonly deps: ContextDeps,
    config: Config,
    provider: Provider,
    state: SessionState,
  ) {
    this.cfg = config;
    this.prov = provider;
    this.toolSpecs = deps.tools.map(toolSpec);
    this.compactable.push(...deps.tools.filter((t) => traitsOf(t).compactable).map((t) => t.name));
    this.system = this.buildSystem();
    this.rest = new RestingCompaction({
      engine: () => this.engine,
      ctx: () => this.ctx(),
      compaction: (run) => this.compaction(run),
      messages: () => this.deps.log.messages(),
      busy: deps.busy,
      emit: deps.emit,
      usage: () => this.usage(),
    });
    this.engine = this.createEngine(state.compaction);
    if (state.pendingOverflow) this.silentOverflow = state.pendingOverflow;
    if (state.providerWindow?.model === this.cfg.model.name) this.adoptProviderWindow(state.providerWindow.tokens, true);
  }

  get config(): Config {
    return this.cfg;
  }

  get provider(): Provider {
    return this.prov;
  }

  get systemPrompt(): string {
    return this.system;
  }

  get tools(): readonly ToolSpec[] {
    return this.toolSpecs;
  }

  /** The built-in tools and the extra ones in force (MCP). */
  get allTools(): readonly AnyTool[] {
    return this.extra.tools.length === 0 ? this.deps.tools : [...this.deps.tools, ...this.extra.tools];
  }

  /**
   * Takes the extra tools (MCP) for the next turn; the definitions and system prompt change only
   * when they did (the same object, or the same tools and section, as a capability's empty set while it offers none yet: nothing is rebuilt, the cached prefix holds).
   */
  setExtraTools(extra: ToolSet | undefined): void {
    const same = extra && extra.system === this.extra.system && extra.tools.length === this.extra.tools.length;
    if (!extra || extra === this.extra || (same && extra.tools.every((t, i) => t === this.extra.tools[i]))) return;
    this.extra = extra;
    for (const t of extra.tools) if (traitsOf(t).compactable && !this.compactable.includes(t.name)) this.compactable.push(t.name);
    this.toolSpecs = this.allTools.map(toolSpec);
    this.system = this.buildSystem();
    this.deps.emit({ type: 'context', usage: this.usage() });
  }

  /** The instruction files the system prompt was last built with (/memory). */
  instructionFiles(): readonly InstructionFile[] {
    return this.instructions;
  }

  /** What this controller keeps in the session's saved state. */
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

  /** The auto-compaction threshold and the window, for /uncompact's fit check. */
  limits(): { auto: number; contextWindow: number } {
    const t = this.engine.thresholds();
    return { auto: t.auto, contextWindow: t.contextWindow };
  }

  /** Tokens the next request would carry with this history instead of the current one (the tokenizer is loaded first). */
  async tokensWith(history: readonly Message[]): Promise<number> {
    await this.deps.counter.load();
    return this.engine.tokensIf({ system: this.system, tools: this.toolSpecs, history });
  }

  /** A turn starts: skill folders the last turns reached join the listing now, never inside a tool loop (its thinking is bound to the prefix). */
  async startTurn(): Promise<void> {
    this.reactiveThisTurn = 0;
    if (await this.deps.caps.turnStart(this.deps.log.messages(), this.cfg.cwd)) this.system = this.buildSystem();
  }

  turnCompleted(): void {
    this.engine.turnCompleted();
  }

  /** The history was replaced outside compaction (a rewind, a revert): the next count starts from estimates. */
  historyReplaced(): void {
    this.engine.historyReplaced();
  }

  /** /compact [focus]: waits for the summary (print mode, ACP). */
  async manual(focus: string | undefined, signal: AbortSignal): Promise<CompactionRecord> {
    const [record] = await this.compaction((emit) => this.engine.manual(this.ctx(), focus, signal, emit));
    return record!;
  }

  /** The background compaction: /compact in the TUI, Esc, a print run's end, the swap at rest (restingCompaction.ts). */
  get background(): RestingCompaction {
    return this.rest;
  }

  /**
   * Whether a prompt can be sent at all: beside it, a request always carries the system prompt, the tool schemas and the pinned
   * messages, and no compaction can shrink those or the prompt (it is kept verbatim). When they do not fit the window's input share, the figures.
   */
  async promptTooLarge(msg: Message): Promise<{ promptTokens: number; fixedTokens: number; limit: number } | undefined> {
    const { counter } = this.deps;
    const limit = this.engine.thresholds().effective;
    const pinned = this.deps.log.messages().filter((m) => m.pinned);
    // the cheap upper bound settles almost every prompt without loading the tokenizer
    if (counter.boundRequest(this.system, this.toolSpecs, [...pinned, msg]) <= limit) return undefined;
    await counter.load();
    const ratio = this.engine.ratio();
    const promptTokens = Math.round(ratio * counter.countMessage(msg));
    const fixedTokens = Math.round(ratio * (counter.countText(this.system) + counter.countToolSpecs(this.toolSpecs) + counter.countMessages(pinned)));
    return promptTokens + fixedTokens > limit ? { promptTokens, fixedTokens, limit } : undefined;
  }

  /** What the loop asks of the session: the history, the system prompt, and the hooks around each model call. */
  loopHost(): LoopHost {
    return {
      history: () => this.deps.log.messages(),
      append: (msg) => this.deps.log.append(msg),
      systemPrompt: () => this.system,
      maxOutputTokens: () => this.cfg.maxOutputTokens,
      beforeModelCall: async (signal) => {
        await this.rest.quiet();
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

  /** /effort: checked against the model like .agentrc's setting (a CommandError-worthy ConfigError when it cannot take it). */
  setEffort(effort: Effort): string {
    const c = this.cfg;
    if (c.provider !== 'anthropic') return `${c.model.name} takes no effort setting.`;
    const next = withEffort(c, effort);
    if (!next.thinking) return `${c.model.name} takes no effort setting.`;
    this.cfg = next;
    // the in-place summary sends the session's thinking too
    this.engine = this.createEngine(this.engine.state(), next, this.prov);
    this.deps.emit({ type: 'context', usage: this.usage() });
    return `Effort ${effort} from the next turn (${c.model.name}). A change of thinking or effort starts a new cache prefix: the next request is written to the cache again.`;
  }

  /** Switches the model for the following turns (/model); returns what to tell the person. */
  setModel(name: string): string {
    const next = withModel(this.cfg, name);
    const { model, provider } = next;
    // everything that can fail (a missing key) before anything changes
    const nextProvider = provider === this.cfg.provider ? this.prov : this.otherProvider(next, `/model ${model.name}`);
    const engine = this.createEngine(this.engine.state(), next, nextProvider);
    this.prov = nextProvider;
    this.cfg = next;
    this.engine = engine;
    this.system = this.buildSystem();
    this.deps.log.setModel(model.name, provider);
    this.deps.emit({ type: 'context', usage: this.usage() });
    return model.source === 'default'
      ? `Switched to ${model.name} (unknown model: assuming a ${model.contextWindow.toLocaleString('en-US')}-token window; describe it under "models" in .agentrc).`
      : `Switched to ${model.name} (${provider}, ${model.contextWindow.toLocaleString('en-US')}-token window).`;
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
    if (!commit) {
      this.deps.log.recordFailure(record);
      return record;
    }
    const before = this.deps.log.messages();
    const refused = this.deps.log.commitCompaction(commit);
    if (refused !== undefined) {
      const failed: CompactionRecord = { ...record, status: 'failed', reason: `${refused}; nothing was changed` };
      delete failed.summary;
      this.deps.log.recordFailure(failed);
      return failed;
    }
    if (record.trigger !== 'micro') this.system = this.buildSystem();
    this.engine.committed(record, this.deps.log.messages(), { system: this.system, tools: this.toolSpecs });
    if (record.trigger !== 'micro')
      for (const m of this.deps.caps.reattach(before, this.deps.log.messages(), this.cfg.model.contextWindow)) this.deps.log.append(m);
    this.deps.saveState();
    this.deps.emit({ type: 'context', usage: this.usage() });
    return record;
  }

  /** Reactive compaction; the engine counts the attempts of this turn against maxReactiveAttempts. */
  private async recoverFromOverflow(err: ProviderError, signal: AbortSignal): Promise<boolean> {
    const attempt = ++this.reactiveThisTurn;
    const [record] = await this.compaction((emit) => this.engine.reactive(this.ctx(), err.overflow, attempt, signal, emit));
    return record?.status === 'applied';
  }

  private ctx(): { system: string; tools: readonly ToolSpec[]; history: readonly Message[] } {
    return { system: this.system, tools: this.toolSpecs, history: this.deps.log.messages() };
  }

  private buildSystem(): string {
    this.instructions = loadInstructions(this.cfg.cwd);
    const agentsMd = renderInstructions(this.instructions, this.cfg.cwd);
    return (
      buildSystemPrompt({
        cwd: this.cfg.cwd,
        platform: `${process.platform} (${process.arch})`,
        model: this.cfg.model.name,
        ...(agentsMd ? { agentsMd } : {}),
        ...(this.deps.role ? { role: this.deps.role } : {}),
      }) +
      this.deps.caps.systemSection(this.deps.tools, this.cfg.model.contextWindow) +
      (this.extra.system ? `\n\n${this.extra.system}` : '')
    );
  }

  private createEngine(state: unknown, config = this.cfg, provider = this.prov): CompactionEngine {
    return compactionEngine(
      {
        deps: this.deps,
        compactable: this.compactable,
        system: () => this.system,
        toolSpecs: () => this.toolSpecs,
        describeToolUse: (name, input) => this.describeToolUse(name, input),
        otherProvider: (c, purpose) => this.otherProvider(c, purpose),
        backgroundSettled: () => this.rest.settled(),
        cwd: () => this.cfg.cwd,
        instructions: () => this.cfg.compaction.instructions,
      },
      state,
      config,
      provider,
    );
  }

  private otherProvider(config: Config, purpose: string): Provider {
    if (!this.deps.providerFor) throw new Error(`${purpose}: cannot reach ${config.provider} from this session`);
    return this.deps.providerFor(config, purpose);
  }

  /** The tool's own key argument (a command, a path), for placeholders and archive labels. */
  private describeToolUse(name: string, input: Record<string, unknown>): string {
    const tool = this.allTools.find((t) => t.name === name);
    if (!tool) return '';
    try {
      return tool.summarize(tool.parse(input));
    } catch {
      return '';
    }
  }

  /**
   * The provider stated a window smaller than the model table or .agentrc says (a local server
   * started with a small context, a proxy): believe it for the rest of the session, so the
   * gauge and the compaction thresholds follow the real limit.
   */
  private adoptProviderWindow(limit: number | undefined, resumed = false): void {
    const model = this.cfg.model;
    if (limit === undefined || limit <= 0 || limit >= model.contextWindow) return;
    const maxOutput = Math.min(this.cfg.maxOutputTokens, Math.max(MIN_REPLY_TOKENS, Math.floor(limit / 4)));
    this.cfg = { ...this.cfg, model: { ...model, contextWindow: limit }, maxOutputTokens: maxOutput };
    this.providerWindow = { model: model.name, tokens: limit };
    this.engine = this.createEngine(this.engine.state());
    if (resumed) return;
    this.deps.notice(
      'warning',
      `The provider says ${model.name} has a ${limit.toLocaleString('en-US')}-token context window (configured: ${model.contextWindow.toLocaleString('en-US')}). ` +
        `Using ${limit.toLocaleString('en-US')} for this session, replies up to ${maxOutput.toLocaleString('en-US')} tokens. ` +
        `Set models["${model.name}"].contextWindow in .agentrc to make it permanent.`,
    );
  }
}
