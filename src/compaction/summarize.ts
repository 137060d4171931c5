import type { ModelLimits } from '../config/models.js';
import { isProviderError, ProviderError } from '../llm/errors.js';
import { addUsage, emptyUsage, userMessage, type Message, type Usage } from '../llm/messages.js';
import { completeStream, type DoneEvent, type Provider } from '../llm/provider.js';
import { nextRetryDelayMs, sleep, type RetryPolicy } from '../llm/retry.js';
import { inPlaceAnswer, inPlaceRequest, type SharedPrefix } from './inPlace.js';
import { metadataSummary } from './metadata.js';
import { modifiedFiles } from './modified.js';
import type { DescribeToolUse } from './micro.js';
import { mapLimit } from './pool.js';
import { buildChunkPrompt, buildConsolidationPrompt, buildSummaryPrompt, buildVerificationPrompt, checkpointProblem, SUMMARIZER_SYSTEM } from './prompt.js';
import { truncateToTokens } from './text.js';
import type { TokenCounter } from './tokens.js';
import { DEFAULT_RENDER, removeToolOutputsMiddleOut, renderTranscript, type RenderOptions } from './transcript.js';
import { fmtInt } from '../tools/format.js';

export interface SummarizerModel {
  provider: Provider;
  model: string;
  limits: ModelLimits;
  /** Retries of rate limits, overload, 5xx and dropped streams, as for the session's own calls; none when absent. */
  retry?: RetryPolicy | undefined;
}

export interface SummaryJob {
  /** The messages to summarize (head without pinned messages and the previous checkpoint). */
  messages: readonly Message[];
  /** The previous checkpoint's summary, to update. */
  previous?: string | undefined;
  /** The person's instructions for a manual compaction. */
  focus?: string | undefined;
  /** The summary's max output tokens. */
  maxTokens: number;
  /** Most history tokens per request; 0 derives it from the summarizer's window. */
  inputTokens: number;
  /** Parallel requests when the head is chunked. */
  concurrency: number;
  verify: boolean;
  signal: AbortSignal;
  progress: (stage: string) => void;
  describe?: DescribeToolUse | undefined;
  /** The session's request as it stands: when given, the summary is first asked in place, reading the prompt cache (inPlace.ts). */
  shared?: SharedPrefix | undefined;
}

export type SummaryMethod = 'single' | 'chunked' | 'trimmed' | 'metadata' | 'provider' | 'ledger';

export interface SummaryResult {
  text: string;
  method: SummaryMethod;
  /** Tokens all summarizer requests consumed. */
  usage: Usage;
  requests: number;
  /** The verification pass amended (or confirmed) the draft. */
  verified: boolean;
}

/** The summary could not be made (a failed request, an empty or cut-off summary, a cancel). */
export class SummaryFailure extends Error {
  override readonly name = 'SummaryFailure';
  constructor(
    message: string,
    readonly aborted = false,
  ) {
    super(message);
  }
}

/** Tool outputs dropped (middle-out) on each retry after the summarizer's context overflowed, with the input budget kept. */
export const TRIM_LADDER: ReadonlyArray<{ fraction: number; budget: number }> = [
  { fraction: 0.1, budget: 0.85 },
  { fraction: 0.2, budget: 0.7 },
  { fraction: 0.5, budget: 0.55 },
  { fraction: 1, budget: 0.4 },
];

/** Share of the summarizer's window (after its output) a request may fill: estimates are not exact. */
const WINDOW_SHARE = 0.9;
const MIN_INPUT_TOKENS = 512;

const isOverflow = (e: unknown): boolean => isProviderError(e) && e.kind === 'context_overflow';

interface Run {
  job: SummaryJob;
  usage: Usage;
  requests: number;
  /** The summarizer's window: the table's, until an overflow error states the real limit. */
  window: number;
  /** The summary's max output tokens, shrunk with the window when a small one shows up. */
  maxTokens: number;
}

/** A summary may use at most this share of a window learned from an overflow error. */
const SMALL_WINDOW_OUTPUT_SHARE = 0.25;

/**
 * Writes checkpoints with the summarizer model: in one request when the head fits its input
 * budget, else in chunks (bounded concurrency) merged by a consolidation pass. When the
 * summarizer's context overflows anyway, tool outputs are dropped middle-out (10%, 20%, 50%,
 * 100%, shrinking the budget too, so text-only histories also get smaller requests); last
 * resort, a metadata-only checkpoint. Optionally a verification pass amends the draft.
 */
export class Summarizer {
  constructor(
    private readonly model: SummarizerModel,
    private readonly counter: TokenCounter,
  ) {}

  async summarize(job: SummaryJob): Promise<SummaryResult> {
    const run: Run = { job, usage: emptyUsage(), requests: 0, window: this.model.limits.contextWindow, maxTokens: job.maxTokens };
    let text: string | undefined = job.shared ? await this.inPlace(run, job.shared) : undefined;
    let method: SummaryMethod = 'single';
    // a reply that is no checkpoint is retried once through the tool-less transcript path (the
    // in-place attempt, when made, was the first try), then the compaction fails
    for (let attempt = job.shared ? 2 : 1; text === undefined && attempt <= 2; attempt++) {
      try {
        const r = await this.once(run, job.messages, 1);
        const problem = checkpointProblem(r.text);
        if (problem === undefined) {
          text = r.text;
          method = r.chunked ? 'chunked' : 'single';
        } else if (attempt === 2) {
          throw new SummaryFailure(problem);
        } else {
          job.progress(`${problem}: asking again`);
        }
      } catch (e) {
        if (!isOverflow(e)) throw this.failure(e, job.signal);
        this.learnWindow(run, e);
        break;
      }
    }
    for (const step of TRIM_LADDER) {
      if (text !== undefined) break;
      job.progress(`the summarizer's context overflowed: retrying without ${Math.round(step.fraction * 100)}% of the tool outputs`);
      try {
        const trimmed = (await this.once(run, removeToolOutputsMiddleOut(job.messages, step.fraction), step.budget)).text;
        const problem = checkpointProblem(trimmed);
        if (problem !== undefined) throw new SummaryFailure(problem);
        text = trimmed;
        method = 'trimmed';
      } catch (e) {
        if (!isOverflow(e)) throw this.failure(e, job.signal);
        this.learnWindow(run, e);
      }
    }
    if (text === undefined) {
      job.progress('no summarizing request fits: writing a metadata-only checkpoint');
      return { text: metadataSummary(job.messages, job.previous), method: 'metadata', usage: run.usage, requests: run.requests, verified: false };
    }
    let verified = false;
    if (job.verify) {
      job.progress('verifying the summary');
      try {
        const checked = await this.verify(run, text);
        const problem = checkpointProblem(checked);
        if (problem === undefined) {
          text = checked;
          verified = true;
        } else {
          job.progress(`verification failed (${problem}): keeping the draft`);
        }
      } catch (e) {
        const f = this.failure(e, job.signal);
        if (f.aborted) throw f;
        job.progress(`verification failed (${f.message}): keeping the draft`);
      }
    }
    return { text, method, usage: run.usage, requests: run.requests, verified };
  }

  /**
   * The summary asked of the session's own request (system, tools, history) plus an
   * instruction, so the provider reads it from its cache. Undefined when it does not fit, the
   * provider says it is too long, or the reply is no summary (a tool call, cut off, empty):
   * the transcript path takes over.
   */
  private async inPlace(run: Run, shared: SharedPrefix): Promise<string | undefined> {
    const { job } = run;
    const req = inPlaceRequest(
      shared,
      { model: this.model.model, maxTokens: run.maxTokens, window: run.window, focus: job.focus, signal: job.signal },
      this.counter,
      (t) => userMessage(t, 'meta'),
    );
    if (!req) return undefined;
    job.progress('summarizing');
    let done: DoneEvent;
    try {
      done = await this.withRetries(job, () => completeStream(this.model.provider, req));
    } catch (e) {
      if (!isOverflow(e)) throw this.failure(e, job.signal);
      this.learnWindow(run, e);
      job.progress('the conversation is too long to summarize as it stands: summarizing a transcript of it');
      return undefined;
    }
    run.usage = addUsage(run.usage, done.usage);
    run.requests += 1;
    const answer = inPlaceAnswer(done);
    const problem = 'problem' in answer ? answer.problem : checkpointProblem(answer.text);
    if (problem !== undefined || !('text' in answer)) {
      job.progress(`${problem ?? 'no summary'}: summarizing a transcript instead`);
      return undefined;
    }
    return answer.text;
  }

  /**
   * An overflow error that states the provider's real limit (smaller than the model table
   * says: a local server, a proxy) shrinks this run's window, and the summary's output with it,
   * so the retries are sized to what the provider accepts rather than merely trimmed.
   */
  private learnWindow(run: Run, e: unknown): void {
    const limit = isProviderError(e) ? e.overflow?.limit : undefined;
    if (limit === undefined || limit <= 0 || limit >= run.window) return;
    run.window = limit;
    run.maxTokens = Math.min(run.maxTokens, Math.max(256, Math.floor(limit * SMALL_WINDOW_OUTPUT_SHARE)));
  }

  /** History tokens a request may carry besides its prompt (`overhead` tokens). */
  inputBudget(run: Pick<Run, 'window' | 'maxTokens'> & { job: Pick<SummaryJob, 'inputTokens'> }, overhead: number): number {
    const derived = Math.floor((run.window - run.maxTokens) * WINDOW_SHARE) - overhead - this.counter.countText(SUMMARIZER_SYSTEM);
    const budget = run.job.inputTokens > 0 ? Math.min(run.job.inputTokens, derived) : derived;
    return Math.max(MIN_INPUT_TOKENS, budget);
  }

  /** Caps on single outputs and texts, so one huge tool output cannot fill a small budget. */
  renderOptions(budget: number, describe?: DescribeToolUse): RenderOptions {
    const toolOutputChars = Math.min(DEFAULT_RENDER.toolOutputChars, Math.max(400, budget));
    return { toolOutputChars, textChars: toolOutputChars * 4, ...(describe ? { describe } : {}) };
  }

  private async once(run: Run, messages: readonly Message[], scale: number): Promise<{ text: string; chunked: boolean }> {
    const { job } = run;
    const base = { previous: job.previous, focus: job.focus, maxTokens: run.maxTokens, modifiedFiles: modifiedFiles(messages) };
    const singleBudget = Math.floor(this.inputBudget(run, this.counter.countText(buildSummaryPrompt({ ...base, transcript: '' }))) * scale);
    const parts = renderTranscript(messages, this.renderOptions(singleBudget, job.describe));
    const sizes = parts.map((p) => this.counter.countText(p) + 1);
    const total = sizes.reduce((a, b) => a + b, 0);
    if (total <= singleBudget) {
      job.progress('summarizing');
      return { text: await this.request(run, buildSummaryPrompt({ ...base, transcript: parts.join('\n') })), chunked: false };
    }
    const chunkOverhead = this.counter.countText(buildChunkPrompt({ transcript: '', part: 99, parts: 99, focus: job.focus, maxTokens: run.maxTokens }));
    const chunkBudget = Math.floor(this.inputBudget(run, chunkOverhead) * scale);
    const chunks = this.pack(parts, sizes, chunkBudget);
    let done = 0;
    job.progress(`summarizing in ${chunks.length} parts`);
    const partials = await mapLimit(chunks, job.concurrency, async (chunk, i) => {
      const text = await this.request(
        run,
        buildChunkPrompt({ transcript: chunk, part: i + 1, parts: chunks.length, focus: job.focus, maxTokens: run.maxTokens }),
      );
      done += 1;
      job.progress(`summarized part ${done} of ${chunks.length}`);
      return text;
    });
    job.progress('merging the partial summaries');
    return { text: await this.consolidate(run, partials, scale), chunked: true };
  }

  /** Greedy packing in order; a part larger than the budget is cut in the middle to fit. */
  private pack(parts: readonly string[], sizes: readonly number[], budget: number): string[] {
    const chunks: string[] = [];
    let current: string[] = [];
    let used = 0;
    parts.forEach((part, i) => {
      let text = part;
      let size = sizes[i]!;
      if (size > budget) {
        text = truncateToTokens(part, budget, (t) => this.counter.countText(t));
        size = budget;
      }
      if (used + size > budget && current.length > 0) {
        chunks.push(current.join('\n'));
        current = [];
        used = 0;
      }
      current.push(text);
      used += size;
    });
    if (current.length > 0) chunks.push(current.join('\n'));
    return chunks;
  }

  /** Merges partials; when they do not fit one request, merges groups first (each round shrinks the list). */
  private async consolidate(run: Run, partials: readonly string[], scale: number): Promise<string> {
    const { job } = run;
    const overhead = this.counter.countText(buildConsolidationPrompt({ partials: [], previous: job.previous, focus: job.focus, maxTokens: run.maxTokens }));
    const budget = Math.floor(this.inputBudget(run, overhead) * scale);
    const sizes = partials.map((p) => this.counter.countText(p) + 16);
    if (sizes.reduce((a, b) => a + b, 0) <= budget) {
      return this.request(run, buildConsolidationPrompt({ partials, previous: job.previous, focus: job.focus, maxTokens: run.maxTokens }));
    }
    const groups: string[][] = [];
    let used = 0;
    partials.forEach((p, i) => {
      const last = groups[groups.length - 1];
      if (last && used + sizes[i]! <= budget) {
        last.push(p);
        used += sizes[i]!;
      } else {
        groups.push([p]);
        used = sizes[i]!;
      }
    });
    if (groups.length === partials.length) {
      // no two partials fit together: cut each down so that all fit the final request
      const share = Math.max(64, Math.floor(budget / partials.length) - 16);
      const cut = partials.map((p) => truncateToTokens(p, share, (t) => this.counter.countText(t)));
      return this.request(run, buildConsolidationPrompt({ partials: cut, previous: job.previous, focus: job.focus, maxTokens: run.maxTokens }));
    }
    const merged = await mapLimit(groups, job.concurrency, (g) =>
      g.length === 1 ? Promise.resolve(g[0]!) : this.request(run, buildConsolidationPrompt({ partials: g, focus: job.focus, maxTokens: run.maxTokens })),
    );
    return this.consolidate(run, merged, scale);
  }

  private async verify(run: Run, draft: string): Promise<string> {
    const { job } = run;
    const overhead = this.counter.countText(buildVerificationPrompt({ transcript: '', draft, focus: job.focus, maxTokens: run.maxTokens }));
    const budget = this.inputBudget(run, overhead);
    const transcript = renderTranscript(job.messages, this.renderOptions(budget, job.describe)).join('\n');
    const fitted = truncateToTokens(transcript, budget, (t) => this.counter.countText(t));
    return this.request(run, buildVerificationPrompt({ transcript: fitted, draft, focus: job.focus, maxTokens: run.maxTokens }));
  }

  /** One summarizer request; a cut-off, refused or empty answer is a failure. */
  private async request(run: Run, prompt: string): Promise<string> {
    const { job } = run;
    if (job.signal.aborted) throw new SummaryFailure('cancelled', true);
    const provider = this.model.provider;
    const done = await this.withRetries(job, () =>
      completeStream(provider, {
        model: this.model.model,
        system: SUMMARIZER_SYSTEM,
        messages: [userMessage(prompt)],
        tools: [],
        maxTokens: run.maxTokens,
        signal: job.signal,
      }),
    );
    run.usage = addUsage(run.usage, done.usage);
    run.requests += 1;
    const text = done.blocks
      .map((b) => (b.type === 'text' ? b.text : ''))
      .join('')
      .trim();
    if (done.stopReason === 'context_window') {
      throw new ProviderError({ kind: 'context_overflow', provider: provider.name, message: 'the summarizer ran out of context window' });
    }
    if (done.stopReason === 'max_tokens') throw new SummaryFailure(`the summary was cut off at its ${fmtInt(run.maxTokens)}-token limit`);
    if (done.stopReason === 'refusal') throw new SummaryFailure('the summarizer refused to write the summary');
    if (!text) throw new SummaryFailure('the summarizer returned an empty summary');
    return text;
  }

  /**
   * A transient failure (rate limit, overload, 5xx, a dropped stream) is retried with the
   * session's backoff, so one 529 does not cost a compaction and a strike on the breaker.
   */
  private async withRetries(job: SummaryJob, call: () => Promise<DoneEvent>): Promise<DoneEvent> {
    const policy = this.model.retry;
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (e) {
        if (!policy || !isProviderError(e) || job.signal.aborted) throw e;
        const delayMs = nextRetryDelayMs(e, attempt, policy);
        if (delayMs === undefined) throw e;
        job.progress(`the summarizer's request failed (${e.kind}): retrying in ${(delayMs / 1000).toFixed(1)}s (${attempt + 1}/${policy.maxAttempts})`);
        await sleep(delayMs, job.signal);
      }
    }
  }

  private failure(e: unknown, signal: AbortSignal): SummaryFailure {
    if (e instanceof SummaryFailure) return e;
    if (signal.aborted || (isProviderError(e) && e.kind === 'aborted')) return new SummaryFailure('cancelled', true);
    if (isProviderError(e)) return new SummaryFailure(`the summarizer request failed (${e.kind}): ${e.message}`);
    return new SummaryFailure(`the summarizer failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}
