// Compaction engine benchmarks: figures measured in one run, no pass/fail.
//   npx tsx bench/compaction.ts
// 1. Per-turn token accounting on a 2,000-message, ~400K-token history: the engine's
//    incremental accounting (memoized counts + anchor on the reported figure) against a full
//    recount (tokenize everything again) and a memoized re-sum (no anchor), as ratios.
// 2. How the per-turn cost grows from 200 to 2,000 to 20,000 messages (it should stay flat).
// 3. Micro selection and split selection times on the same histories.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { CompactionEngine } from '../src/compaction/engine.js';
import { selectMicro } from '../src/compaction/micro.js';
import { selectSplit } from '../src/compaction/split.js';
import { loadTokenizer, TokenCounter } from '../src/compaction/tokens.js';
import { CompactionSchema } from '../src/config/schema.js';
import type { Message } from '../src/llm/messages.js';
import type { Provider, ToolSpec } from '../src/llm/provider.js';
import { rng } from './rng.js';

export interface CompactionBenchOptions {
  /** History sizes (messages) for the scaling and selection figures. */
  sizes?: number[];
  /** Size of the accounting comparison. */
  accountingSize?: number;
  /** Turns timed per size. */
  turns?: number;
  /** Full recounts timed (each tokenizes the whole history). */
  fullRecounts?: number;
}

export interface AccountingFigures {
  messages: number;
  tokens: number;
  /** One-off: the first full count that seeds the memo and the anchor. */
  firstCountMs: number;
  /** Medians over the timed turns; each turn appends a reply and a request (~190 tokens). */
  incrementalMsPerTurn: number;
  memoizedResumMsPerTurn: number;
  fullRecountMsPerTurn: number;
  /** Resume: a fresh counter seeded with the counts stored with the rows, then the whole sum. */
  resumeFromStoredMs: number;
  /** fullRecount ÷ incremental */
  speedupVsFull: number;
  /** memoizedResum ÷ incremental */
  speedupVsResum: number;
}

export interface ScalingRow {
  messages: number;
  tokens: number;
  perTurnMs: number;
  /** perTurn ÷ perTurn of the smallest history */
  ratio: number;
  /** The same turn without the anchor (memoized re-sum of every message). */
  resumPerTurnMs: number;
  microSelectMs: number;
  splitSelectMs: number;
}

export interface CompactionBenchResult {
  accounting: AccountingFigures;
  scaling: ScalingRow[];
}

// ---- synthetic sessions ------------------------------------------------------------------

const SYLLABLES = ['ka', 'lo', 'mi', 'ter', 'an', 'sol', 'vex', 'ru', 'pin', 'dor', 'el', 'quo', 'zan', 'fi', 'gra', 'hun'];
const CODE = ['const', 'return', 'import', 'export', 'function', '=>', '{', '}', '(', ')', ';', 'await', 'if', 'test', 'expect'];

/** Deterministic text generator; word choice is Zipf-like, so tokenization looks like real text. */
class Text {
  private readonly next: () => number;
  private readonly vocab: string[];
  constructor(seed: number) {
    this.next = rng(seed);
    this.vocab = Array.from({ length: 4_000 }, () => {
      const k = 1 + Math.floor(this.next() * 3);
      return Array.from({ length: k }, () => SYLLABLES[Math.floor(this.next() * SYLLABLES.length)]).join('');
    });
  }
  words(n: number, code = false): string {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      if (code && this.next() < 0.35) out.push(CODE[Math.floor(this.next() * CODE.length)]!);
      else out.push(this.vocab[Math.floor(this.vocab.length * this.next() ** 2)]!);
      if (code && this.next() < 0.08) out.push('\n');
    }
    return out.join(' ');
  }
}

/**
 * n messages in turns of four: a request, a tool call, its output, an answer (~200 tokens a
 * message on average, so 2,000 messages come to ~400K tokens).
 */
export function syntheticSession(n: number, seed = 7): Message[] {
  const text = new Text(seed);
  const out: Message[] = [];
  for (let k = 0; out.length < n; k++) {
    out.push({ id: `u${k}`, role: 'user', kind: 'normal', createdAt: k, blocks: [{ type: 'text', text: text.words(28) }] });
    if (out.length >= n) break;
    const tool = k % 3 === 0 ? 'Bash' : k % 3 === 1 ? 'FileRead' : 'Grep';
    const input = tool === 'Bash' ? { command: `npm test -- ${k}` } : tool === 'FileRead' ? { path: `src/mod${k}.ts` } : { pattern: `sym${k}` };
    out.push({
      id: `a${k}`,
      role: 'assistant',
      kind: 'normal',
      createdAt: k,
      blocks: [
        { type: 'text', text: text.words(18) },
        { type: 'tool_use', id: `t${k}`, name: tool, input },
      ],
    });
    out.push({
      id: `r${k}`,
      role: 'user',
      kind: 'normal',
      createdAt: k,
      blocks: [{ type: 'tool_result', toolUseId: `t${k}`, content: text.words(225, true), isError: false }],
    });
    if (out.length >= n) break;
    out.push({ id: `f${k}`, role: 'assistant', kind: 'normal', createdAt: k, blocks: [{ type: 'text', text: text.words(115) }] });
  }
  // an odd size may end on a tool call: drop it so the history stays valid
  while (out.length > 0 && out[out.length - 1]!.blocks.some((b) => b.type === 'tool_use')) out.pop();
  return out;
}

const SYSTEM = `You are a coding agent. ${new Text(3).words(1_200)}`;
const TOOLS: ToolSpec[] = ['FileRead', 'Bash', 'Grep', 'Glob', 'Recall'].map((name) => ({
  name,
  description: `${name}: ${new Text(name.length).words(120)}`,
  inputSchema: { type: 'object', properties: { path: { type: 'string' }, command: { type: 'string' } } },
}));

const noSummarizer: Provider = {
  name: 'anthropic',
  async *stream() {
    throw new Error('the benchmark never summarizes');
  },
};

function newEngine(counter: TokenCounter): CompactionEngine {
  return new CompactionEngine({
    config: CompactionSchema.parse({}),
    limits: { contextWindow: 100_000_000, maxOutputTokens: 32_000 },
    model: 'bench',
    summarizer: { provider: noSummarizer, model: 'bench', limits: { contextWindow: 200_000, maxOutputTokens: 8_000 } },
    counter,
    compactableTools: ['FileRead', 'Bash', 'Grep', 'Glob', 'Recall'],
  });
}

/** One turn's new messages: the model's reply and the person's next request (fresh objects, fresh text). */
function turnMessages(text: Text, k: number): Message[] {
  return [
    { id: `x${k}`, role: 'assistant', kind: 'normal', createdAt: k, blocks: [{ type: 'text', text: text.words(115) }] },
    { id: `y${k}`, role: 'user', kind: 'normal', createdAt: k, blocks: [{ type: 'text', text: text.words(28) }] },
  ];
}

interface Prepared {
  history: Message[];
  counter: TokenCounter;
  engine: CompactionEngine;
  tokens: number;
  firstCountMs: number;
}

/** Seeds an engine as a live session has it: every message counted once, anchored on a reply. */
function prepare(n: number): Prepared {
  const history = syntheticSession(n);
  const counter = new TokenCounter();
  const engine = newEngine(counter);
  const t0 = performance.now();
  const raw = counter.countSystem(SYSTEM) + counter.countToolSpecs(TOOLS) + counter.countMessages(history);
  engine.observeResponse({ system: SYSTEM, tools: TOOLS, messages: history }, Math.round(raw * 1.08));
  const firstCountMs = performance.now() - t0;
  return { history, counter, engine, tokens: engine.tokens({ system: SYSTEM, tools: TOOLS, history }), firstCountMs };
}

/** The engine's per-turn work: the gauge after the new messages, then the reply's figure folded in. */
function incrementalPerTurn(p: Prepared, turns: number, seed: number): number {
  const text = new Text(seed);
  const times: number[] = [];
  for (let k = 0; k < turns; k++) {
    p.history.push(...turnMessages(text, k));
    const t0 = performance.now();
    const usage = p.engine.usage({ system: SYSTEM, tools: TOOLS, history: p.history });
    p.engine.observeResponse({ system: SYSTEM, tools: TOOLS, messages: p.history }, usage.tokens);
    times.push(performance.now() - t0);
  }
  return median(times);
}

/** Memoized counts but no anchor: the new messages are tokenized, then every count is summed again. */
function resumPerTurn(p: Prepared, turns: number, seed: number): number {
  const text = new Text(seed);
  const times: number[] = [];
  let sink = 0;
  for (let k = 0; k < turns; k++) {
    p.history.push(...turnMessages(text, k));
    const t0 = performance.now();
    sink += p.counter.countSystem(SYSTEM) + p.counter.countToolSpecs(TOOLS) + p.counter.countMessages(p.history);
    times.push(performance.now() - t0);
  }
  if (sink < 0) throw new Error('unreachable');
  return median(times);
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

export async function runCompactionBench(opts: CompactionBenchOptions = {}): Promise<CompactionBenchResult> {
  const sizes = opts.sizes ?? [200, 2_000, 20_000];
  const accountingSize = opts.accountingSize ?? 2_000;
  const turns = opts.turns ?? 100;
  const fullRecounts = opts.fullRecounts ?? 3;
  await loadTokenizer();

  incrementalPerTurn(prepare(200), turns, 5); // warm the JIT before anything is timed

  // 1. incremental vs full recount vs memoized re-sum, same history, same run
  const p = prepare(accountingSize);
  const incremental = incrementalPerTurn(p, turns, 11);
  const resum = resumPerTurn(p, turns, 12);
  const fullTimes: number[] = [];
  for (let i = 0; i < fullRecounts; i++) {
    const t0 = performance.now();
    const c = new TokenCounter();
    c.countSystem(SYSTEM);
    c.countToolSpecs(TOOLS);
    c.countMessages(p.history);
    fullTimes.push(performance.now() - t0);
  }
  const full = median(fullTimes);
  // resume: the counts saved with each row seed a fresh counter instead of the tokenizer
  const stored = p.history.map((m) => p.counter.countMessage(m));
  const resumeTimes: number[] = [];
  for (let i = 0; i < fullRecounts; i++) {
    const t0 = performance.now();
    const c = new TokenCounter();
    p.history.forEach((m, j) => c.prime(m, stored[j]!));
    c.countSystem(SYSTEM);
    c.countToolSpecs(TOOLS);
    c.countMessages(p.history);
    resumeTimes.push(performance.now() - t0);
  }
  const accounting: AccountingFigures = {
    messages: accountingSize,
    tokens: p.tokens,
    firstCountMs: p.firstCountMs,
    incrementalMsPerTurn: incremental,
    memoizedResumMsPerTurn: resum,
    fullRecountMsPerTurn: full,
    resumeFromStoredMs: median(resumeTimes),
    speedupVsFull: full / incremental,
    speedupVsResum: resum / incremental,
  };

  // 2. and 3. per-turn cost and selection times across sizes
  const rows: Omit<ScalingRow, 'ratio'>[] = [];
  for (const n of sizes) {
    const q = prepare(n);
    const perTurnMs = incrementalPerTurn(q, turns, 13);
    const resumPerTurnMs = resumPerTurn(q, turns, 14);
    const tokensOf = (m: Message): number => q.counter.countMessage(m);
    const micro: number[] = [];
    const split: number[] = [];
    for (let i = 0; i < 5; i++) {
      let t0 = performance.now();
      selectMicro(q.history, { compactableTools: ['FileRead', 'Bash', 'Grep', 'Glob', 'Recall'], keepRecent: 5 }, q.counter);
      micro.push(performance.now() - t0);
      t0 = performance.now();
      selectSplit(q.history, { tailTurns: 3, tailTokens: 20_000 }, tokensOf);
      split.push(performance.now() - t0);
    }
    rows.push({ messages: n, tokens: q.tokens, perTurnMs, resumPerTurnMs, microSelectMs: median(micro), splitSelectMs: median(split) });
  }
  const base = rows[0]?.perTurnMs ?? 1;
  return { accounting, scaling: rows.map((r) => ({ ...r, ratio: r.perTurnMs / base })) };
}

export function formatCompactionBench(r: CompactionBenchResult): string {
  const a = r.accounting;
  const ms = (x: number): string => `${x < 1 ? x.toFixed(3) : x.toFixed(1)}ms`;
  const lines = [
    `Token accounting per turn, ${a.messages.toLocaleString('en-US')} messages (~${Math.round(a.tokens / 1000)}K tokens):`,
    `  incremental (memoized + anchored)  ${ms(a.incrementalMsPerTurn)}`,
    `  memoized re-sum, no anchor         ${ms(a.memoizedResumMsPerTurn)}   (${a.speedupVsResum.toFixed(2)}× the incremental cost)`,
    `  full recount                       ${ms(a.fullRecountMsPerTurn)}   (${Math.round(a.speedupVsFull).toLocaleString('en-US')}× the incremental cost)`,
    `  first count (once per session)     ${ms(a.firstCountMs)}`,
    `  first count on resume, from the counts stored with the rows  ${ms(a.resumeFromStoredMs)}   (tokenizing them again: ${ms(a.fullRecountMsPerTurn)})`,
    '',
    'Per-turn accounting and selection by history size (ratio against the smallest):',
    '  messages     tokens   per turn   ratio   (no anchor)   micro select   split select',
  ];
  for (const s of r.scaling) {
    lines.push(
      `  ${s.messages.toLocaleString('en-US').padStart(8)}  ${`${Math.round(s.tokens / 1000)}K`.padStart(9)}  ${ms(s.perTurnMs).padStart(9)}  ${s.ratio.toFixed(2).padStart(6)}  ${ms(s.resumPerTurnMs).padStart(12)}  ${ms(s.microSelectMs).padStart(13)}  ${ms(s.splitSelectMs).padStart(13)}`,
    );
  }
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runCompactionBench()
    .then((r) => {
      console.log(formatCompactionBench(r));
      process.exit(0);
    })
    .catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
}
