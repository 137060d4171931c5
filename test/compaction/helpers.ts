import { CompactionEngine, type EngineDeps } from '../../src/compaction/engine.js';
import { IN_PLACE_MARKER } from '../../src/compaction/prompt.js';
import type { TokenCounter } from '../../src/compaction/tokens.js';
import type { CompactionConfig } from '../../src/config/schema.js';
import { compactionEntry, type CompactionCommit } from '../../src/history/compaction.js';
import { applyRecord } from '../../src/history/view.js';
import { CompactionSchema } from '../../src/config/schema.js';
import { ProviderError } from '../../src/llm/errors.js';
import { emptyUsage, textOf, type Block, type Message, type Usage } from '../../src/llm/messages.js';
import type { ModelRequest, Provider, StopReason, StreamEvent } from '../../src/llm/provider.js';

/** A summarizer request: the transcript path (its own system prompt) or the in-place one (the session's request plus the compaction instruction). */
export function isSummaryRequest(req: ModelRequest): boolean {
  const last = req.messages[req.messages.length - 1];
  return req.system.includes('context checkpoints') || (last !== undefined && textOf(last).startsWith(IN_PLACE_MARKER));
}

/** The history after an applied compaction outcome, by the history's reducer (as the session commits it). */
export function historyAfter(history: readonly Message[], o: { commit?: CompactionCommit | undefined }): Message[] {
  const c = o.commit;
  if (!c) throw new Error('the compaction was not applied');
  return applyRecord(history, compactionEntry(c), c.added);
}

/** The ids an applied compaction takes out of view. */
export function archivedIds(history: readonly Message[], o: { commit?: CompactionCommit | undefined }): string[] {
  const kept = new Set(historyAfter(history, o).map((m) => m.id));
  return history.filter((m) => !kept.has(m.id)).map((m) => m.id);
}

let seq = 0;
export const mid = (p = 'm'): string => `${p}${++seq}`;

/** The synchronous tiers (compaction.background off) unless a test asks for the background summary. */
export const cfg = (over: Partial<CompactionConfig> = {}): CompactionConfig => CompactionSchema.parse({ background: false, ...over });

export function user(text: string, extra: Partial<Message> = {}): Message {
  return { id: mid(), role: 'user', kind: 'normal', blocks: [{ type: 'text', text }], createdAt: 0, ...extra };
}

export function assistant(
  text: string,
  calls: Array<{ id: string; name: string; input?: Record<string, unknown> }> = [],
  extra: Partial<Message> = {},
): Message {
  const blocks: Block[] = [];
  if (text) blocks.push({ type: 'text', text });
  for (const c of calls) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: c.input ?? {} });
  return { id: mid(), role: 'assistant', kind: 'normal', blocks, createdAt: 0, ...extra };
}

export function results(rs: Array<{ id: string; content: string; isError?: boolean }>, extra: Partial<Message> = {}): Message {
  return {
    id: mid(),
    role: 'user',
    kind: 'normal',
    blocks: rs.map((r) => ({ type: 'tool_result' as const, toolUseId: r.id, content: r.content, isError: r.isError ?? false })),
    createdAt: 0,
    ...extra,
  };
}

/** A step: an assistant calling one tool and its result. */
export function step(name: string, input: Record<string, unknown>, output: string): [Message, Message] {
  const id = mid('t');
  return [assistant('', [{ id, name, input }]), results([{ id, content: output }])];
}

/** Roughly n tokens of varied text (o200k: ~1 token per short word). */
export function words(n: number, salt = ''): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(`w${(i * 7919 + salt.length) % 1000}${salt}`);
  return out.join(' ');
}

export type Reply = { text: string; stopReason?: StopReason; usage?: Partial<Usage> } | Error;

/**
 * Our own Provider implementation for engine tests: answers each request with `respond`,
 * records the requests, and measures how many were in flight at once.
 */
export class ScriptedProvider implements Provider {
  readonly name = 'anthropic' as const;
  readonly requests: ModelRequest[] = [];
  inFlight = 0;
  maxInFlight = 0;
  constructor(
    private readonly respond: (req: ModelRequest, index: number) => Reply | Promise<Reply>,
    private readonly delayMs = 0,
  ) {}

  async *stream(req: ModelRequest): AsyncIterable<StreamEvent> {
    const index = this.requests.length;
    this.requests.push(req);
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
      else await Promise.resolve();
      const reply = await this.respond(req, index);
      if (reply instanceof Error) throw reply;
      yield { type: 'text_delta', text: reply.text };
      yield {
        type: 'done',
        blocks: reply.text ? [{ type: 'text', text: reply.text }] : [],
        stopReason: reply.stopReason ?? 'end_turn',
        usage: { ...emptyUsage(), inputTokens: 100, outputTokens: 50, ...reply.usage },
        model: req.model,
      };
    } finally {
      this.inFlight -= 1;
    }
  }

  /** The prompt text of request i. */
  prompt(i: number): string {
    const m = this.requests[i]?.messages[0];
    return m ? textOf(m) : '';
  }
}

export const overflowError = (): ProviderError =>
  new ProviderError({
    kind: 'context_overflow',
    provider: 'anthropic',
    message: 'prompt is too long: 300000 tokens > 200000 maximum',
    overflow: { promptTokens: 300_000, limit: 200_000 },
  });

export const serverError = (): ProviderError => new ProviderError({ kind: 'overloaded', provider: 'anthropic', message: 'Overloaded', status: 529 });

export const SUMMARY = ['## Goal', '- finish the task', '## User Preferences and Constraints', '(none)', '## Next Steps', '- continue'].join('\n');

/** About n tokens of text (3 tokens per salted word). */
export const tokensText = (n: number, salt = 's'): string => words(Math.max(1, Math.round(n / 3)), salt || 's');

/** The window most engine tests give their model. */
export const LIMITS = { contextWindow: 100_000, maxOutputTokens: 10_000 };

/** A compaction context of a history under a fixed system prompt and no tools. */
export const ctx = (history: readonly Message[]) => ({ system: 'You are a test agent.', tools: [], history });

/** A summarizer request that ends only when its request is aborted. */
export const untilAborted = (req: ModelRequest): Promise<never> =>
  new Promise((_resolve, reject) => {
    const s = req.signal;
    if (s?.aborted) reject(s.reason);
    else s?.addEventListener('abort', () => reject(s.reason), { once: true });
  });

/**
 * An engine with the background summary on, over LIMITS unless `limits` says otherwise, its
 * summarizer `provider` with a 400K window; `state` is a saved state to start from, `more` other deps.
 */
export function backgroundEngine(
  counter: TokenCounter,
  provider: Provider,
  over: Partial<CompactionConfig> = {},
  opts: { limits?: typeof LIMITS; state?: unknown; more?: Partial<EngineDeps> } = {},
): CompactionEngine {
  return new CompactionEngine(
    {
      config: cfg({ background: true, ...over }),
      limits: opts.limits ?? LIMITS,
      model: 'test-model',
      summarizer: { provider, model: 'sum-model', limits: { contextWindow: 400_000, maxOutputTokens: 32_000 } },
      counter,
      compactableTools: [],
      ...opts.more,
    },
    opts.state,
  );
}

/** Questions and 2,000-token answers, grown until the engine counts at least `tokens`. */
export function historyUpTo(e: CompactionEngine, tokens: number): Message[] {
  const history: Message[] = [];
  for (let i = 0; e.tokens(ctx(history)) < tokens; i++) history.push(user(`question ${i}`), assistant(tokensText(2_000, `b${i}`)));
  return history;
}

/** A window whose auto threshold is `tokens` exactly, under the default settings with the background summary on. */
export function windowWithAutoAt(tokens: number): typeof LIMITS {
  const c = cfg({ background: true });
  return { contextWindow: tokens + c.reserveTokens + c.autoBufferTokens, maxOutputTokens: 100_000 };
}
