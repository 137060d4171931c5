// Store benchmarks: figures measured in one run, no pass/fail.
//   npx tsx bench/store.ts            prints all three
// The functions are exported for the bench runner; each cleans up its temp files.
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { CompactionCommit } from '../src/history/compaction.js';
import type { Message } from '../src/llm/messages.js';
import { openStore, type Store } from '../src/store/index.js';
import { rng } from './rng.js';

// ---- synthetic conversation -----------------------------------------------------------------

const SYLLABLES = ['ka', 'lo', 'mi', 'ter', 'an', 'sol', 'vex', 'ru', 'pin', 'dor', 'el', 'quo', 'zan', 'fi', 'gra', 'hun'];
const TECH = ['parser', 'test', 'failing', 'build', 'error', 'module', 'import', 'config', 'cache', 'token', 'stream', 'retry', 'session', 'index'];

class Talk {
  private readonly next: () => number;
  private readonly vocab: string[];
  private n = 0;
  private t = Date.UTC(2025, 0, 1);

  constructor(seed: number) {
    this.next = rng(seed);
    this.vocab = Array.from({ length: 3000 }, () => {
      const k = 2 + Math.floor(this.next() * 3);
      return Array.from({ length: k }, () => SYLLABLES[Math.floor(this.next() * SYLLABLES.length)]).join('');
    });
  }

  /** Zipf-like word choice: a few common words, a long tail of rare ones. */
  word(): string {
    if (this.next() < 0.15) return TECH[Math.floor(this.next() * TECH.length)]!;
    return this.vocab[Math.floor(this.vocab.length * this.next() ** 2)]!;
  }

  words(min: number, max: number): string {
    const k = min + Math.floor(this.next() * (max - min));
    return Array.from({ length: k }, () => this.word()).join(' ');
  }

  private msg(role: Message['role'], blocks: Message['blocks']): Message {
    this.n++;
    this.t += 1000;
    return { id: `m${this.n.toString(36).padStart(7, '0')}`, role, kind: 'normal', createdAt: this.t, blocks };
  }

  /** One user turn: prompt, a tool call and its result, the answer (4 messages). */
  turn(): Message[] {
    const useId = `tu${this.n}`;
    return [
      this.msg('user', [{ type: 'text', text: this.words(8, 30) }]),
      this.msg('assistant', [{ type: 'tool_use', id: useId, name: 'Bash', input: { command: `npm run ${this.word()} -- ${this.word()}` } }]),
      this.msg('user', [{ type: 'tool_result', toolUseId: useId, content: this.words(20, 80), isError: false }]),
      {
        ...this.msg('assistant', [{ type: 'text', text: this.words(10, 40) }]),
        model: 'bench-model',
        usage: { inputTokens: 1000, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
    ];
  }

  checkpoint(archived: number): Message {
    return { ...this.msg('user', [{ type: 'text', text: `Checkpoint: ${archived} messages archived. ${this.words(40, 60)}` }]), kind: 'checkpoint' };
  }
}

const tokensOf = (m: Message): number => Math.ceil(JSON.stringify(m.blocks).length / 4);

/** Appends turns to `store` until `count` messages are archived, compacting every `batch`. Returns the visible history. */
function archiveMessages(store: Store, sessionId: string, talk: Talk, count: number, batch = 2_000): Message[] {
  let visible: Message[] = [];
  let archived = 0;
  while (archived < count) {
    const want = Math.min(batch, count - archived);
    while (visible.length < want) {
      for (const m of talk.turn()) {
        store.appendMessage(sessionId, m, tokensOf(m));
        visible.push(m);
      }
    }
    const head = visible.slice(0, want);
    const checkpoint = talk.checkpoint(head.length);
    const rest = visible.slice(want);
    const commit: CompactionCommit = {
      record: {
        id: `c${archived}`,
        trigger: 'auto',
        status: 'applied',
        tokensBefore: 100_000,
        tokensAfter: 10_000,
        archivedCount: head.length,
        preservedCount: rest.length,
        summaryTokens: 500,
        summary: textOfBlocks(checkpoint),
        method: 'single',
        durationMs: 1000,
        model: 'bench-model',
        usage: { inputTokens: 90_000, outputTokens: 500, cacheReadTokens: 0, cacheWriteTokens: 0 },
        createdAt: checkpoint.createdAt,
      },
      body: { view: [checkpoint, ...rest].map((m) => m.id) },
      added: [checkpoint],
      cleared: [],
    };
    store.applyCompaction(sessionId, commit, tokensOf);
    archived += head.length;
    visible = [checkpoint, ...rest];
  }
  return visible;
}

const textOfBlocks = (m: Message): string => m.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');

function appendTail(store: Store, sessionId: string, talk: Talk, count: number): void {
  let n = 0;
  while (n < count) {
    for (const m of talk.turn()) {
      if (n++ >= count) break;
      store.appendMessage(sessionId, m, tokensOf(m));
    }
  }
}

// ---- fixtures -------------------------------------------------------------------------------

export interface ArchiveFixture {
  dir: string;
  /** Database with one session: `archived` archived messages and a `tail`-message visible tail. */
  bigFile: string;
  /** Database with one session of only the `tail` messages. */
  smallFile: string;
  sessionId: string;
  archived: number;
  tail: number;
  buildSeconds: number;
  bigFileMiB: number;
  cleanup(): void;
}

export function buildArchiveFixture(opts: { archived?: number; tail?: number } = {}): ArchiveFixture {
  const archived = opts.archived ?? 100_000;
  const tail = opts.tail ?? 200;
  const dir = mkdtempSync(join(tmpdir(), 'agent-bench-store-'));
  const started = performance.now();
  const sessionId = 'bench-session';
  const bigFile = join(dir, 'big.db');
  const smallFile = join(dir, 'small.db');
  try {
    const big = openStore(bigFile);
    big.createSession({ id: sessionId, cwd: '/bench', provider: 'anthropic', model: 'bench-model' });
    const talk = new Talk(42);
    archiveMessages(big, sessionId, talk, archived);
    appendTail(big, sessionId, talk, tail);
    big.close();
    const small = openStore(smallFile);
    small.createSession({ id: sessionId, cwd: '/bench', provider: 'anthropic', model: 'bench-model' });
    appendTail(small, sessionId, new Talk(7), tail);
    small.close();
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    dir,
    bigFile,
    smallFile,
    sessionId,
    archived,
    tail,
    buildSeconds: (performance.now() - started) / 1000,
    bigFileMiB: statSync(bigFile).size / 2 ** 20,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

async function withFixture<T>(given: ArchiveFixture | undefined, opts: { archived?: number; tail?: number }, fn: (f: ArchiveFixture) => T): Promise<T> {
  const fixture = given ?? buildArchiveFixture(opts);
  try {
    return fn(fixture);
  } finally {
    if (!given) fixture.cleanup();
  }
}

// ---- 1. resume ------------------------------------------------------------------------------

export interface ResumeFigures {
  archivedMessages: number;
  visibleMessagesBig: number;
  visibleMessagesSmall: number;
  runs: number;
  /** Median of openStore + loadVisibleEntries (what Session.open reads) + close, in ms. */
  bigMedianMs: number;
  smallMedianMs: number;
  /** big ÷ small: close to 1 when resume cost follows the visible history only. */
  ratio: number;
}

/** Resume time of a session with a huge archive vs one with only its visible tail. */
export async function benchResume(opts: { archived?: number; tail?: number; runs?: number; fixture?: ArchiveFixture } = {}): Promise<ResumeFigures> {
  const runs = opts.runs ?? 40;
  return withFixture(opts.fixture, opts, (f) => {
    const resume = (file: string): { ms: number; visible: number } => {
      const t0 = performance.now();
      const store = openStore(file);
      const visible = store.loadVisibleEntries(f.sessionId).length;
      store.close();
      return { ms: performance.now() - t0, visible };
    };
    resume(f.bigFile); // warm the page cache for both files alike
    resume(f.smallFile);
    const big: number[] = [];
    const small: number[] = [];
    let visibleBig = 0;
    let visibleSmall = 0;
    for (let i = 0; i < runs; i++) {
      const b = resume(f.bigFile);
      const s = resume(f.smallFile);
      big.push(b.ms);
      small.push(s.ms);
      visibleBig = b.visible;
      visibleSmall = s.visible;
    }
    const bigMedianMs = median(big);
    const smallMedianMs = median(small);
    return {
      archivedMessages: f.archived,
      visibleMessagesBig: visibleBig,
      visibleMessagesSmall: visibleSmall,
      runs,
      bigMedianMs,
      smallMedianMs,
      ratio: bigMedianMs / smallMedianMs,
    };
  });
}

// ---- 1b. undo a compaction -------------------------------------------------------------------

/** What /uncompact costs on the huge session: the replay of its whole log, the preview, the revert itself (on a copy). */
function benchUndo(f: ArchiveFixture): { logEntries: number; deriveMs: number; previewMs: number; revertMs: number; visibleAfter: number } {
  const copy = join(f.dir, 'undo.db');
  copyFileSync(f.bigFile, copy);
  const store = openStore(copy);
  try {
    let t0 = performance.now();
    store.deriveVisibleIds(f.sessionId);
    const deriveMs = performance.now() - t0;
    const last = store.compactionsInEffect(f.sessionId).at(-1)!;
    const req = { id: 'rv_bench', target: last.record.id, createdAt: Date.now() };
    t0 = performance.now();
    store.previewRevert(f.sessionId, req);
    const previewMs = performance.now() - t0;
    t0 = performance.now();
    store.revertCompaction(f.sessionId, req);
    const revertMs = performance.now() - t0;
    const info = store.getSession(f.sessionId)!;
    return { logEntries: info.messageCount + info.compactionCount + 1, deriveMs, previewMs, revertMs, visibleAfter: info.visibleCount };
  } finally {
    store.close();
  }
}

// ---- 2. append ------------------------------------------------------------------------------

export interface AppendFigures {
  messages: number;
  seconds: number;
  messagesPerSecond: number;
  /** Average stored size of a message's blocks, in bytes. */
  avgMessageBytes: number;
}

/** Append throughput: one committed transaction per message, WAL, synchronous=NORMAL. */
export async function benchAppend(opts: { messages?: number } = {}): Promise<AppendFigures> {
  const count = opts.messages ?? 10_000;
  const dir = mkdtempSync(join(tmpdir(), 'agent-bench-store-'));
  try {
    const store = openStore(join(dir, 'append.db'));
    store.createSession({ id: 's', cwd: '/bench', provider: 'anthropic', model: 'bench-model' });
    const talk = new Talk(1);
    const msgs: Message[] = [];
    while (msgs.length < count) msgs.push(...talk.turn());
    msgs.length = count;
    const bytes = msgs.reduce((n, m) => n + JSON.stringify(m.blocks).length, 0);
    const t0 = performance.now();
    for (const m of msgs) store.appendMessage('s', m, 10);
    const seconds = (performance.now() - t0) / 1000;
    store.close();
    return { messages: count, seconds, messagesPerSecond: count / seconds, avgMessageBytes: bytes / count };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- 3. archive search ----------------------------------------------------------------------

export interface SearchFigures {
  archivedMessages: number;
  queries: string[];
  runs: number;
  /** Sum over the queries of each query's median time, in ms. */
  ftsMs: number;
  likeMs: number;
  /** likeMs ÷ ftsMs: how many times faster the FTS5 index answers. */
  ratio: number;
  /** Hits on the first page (limit 20) per query, FTS then LIKE. */
  ftsHits: number[];
  likeHits: number[];
}

/** Archive search over a large archive: FTS5 (bm25) vs a plain LIKE scan of the same text. */
export async function benchSearch(opts: { archived?: number; runs?: number; fixture?: ArchiveFixture } = {}): Promise<SearchFigures> {
  const runs = opts.runs ?? 7;
  return withFixture(opts.fixture, opts, (f) => {
    const talk = new Talk(42); // the fixture's vocabulary: rare and common words that do occur
    const rare = talk
      .words(3, 4)
      .split(' ')
      .filter((w) => !TECH.includes(w));
    const queries = ['parser', 'failing test', rare[0] ?? 'kalo', `${rare[0] ?? 'kalo'} ${rare[1] ?? 'mi'}`, 'npm run build'];
    const store = openStore(f.bigFile, { readonly: true });
    try {
      const time = (fn: () => number): { ms: number; hits: number } => {
        const times: number[] = [];
        let hits = 0;
        for (let i = 0; i < runs; i++) {
          const t0 = performance.now();
          hits = fn();
          times.push(performance.now() - t0);
        }
        return { ms: median(times), hits };
      };
      const page = { sessionId: f.sessionId, limit: 20, offset: 0 };
      const fts = queries.map((q) => time(() => store.searchArchive(q, page).length));
      const like = queries.map((q) => time(() => store.likeScanArchive(q, page).length));
      const ftsMs = fts.reduce((n, r) => n + r.ms, 0);
      const likeMs = like.reduce((n, r) => n + r.ms, 0);
      return {
        archivedMessages: f.archived,
        queries,
        runs,
        ftsMs,
        likeMs,
        ratio: likeMs / ftsMs,
        ftsHits: fts.map((r) => r.hits),
        likeHits: like.map((r) => r.hits),
      };
    } finally {
      store.close();
    }
  });
}

// ---- standalone -----------------------------------------------------------------------------

async function main(): Promise<void> {
  const fmt = (n: number, d = 2) => n.toLocaleString('en-US', { maximumFractionDigits: d });
  const append = await benchAppend();
  console.log(
    `append: ${fmt(append.messages)} messages in ${fmt(append.seconds)} s → ${fmt(append.messagesPerSecond, 0)} messages/s (avg ${fmt(append.avgMessageBytes, 0)} B each, WAL, synchronous=FULL: one commit and fsync per message)`,
  );
  const fixture = buildArchiveFixture();
  try {
    console.log(
      `fixture: ${fmt(fixture.archived)} archived + ${fixture.tail} visible messages, ${fmt(fixture.bigFileMiB, 1)} MiB, built in ${fmt(fixture.buildSeconds, 1)} s`,
    );
    const resume = await benchResume({ fixture });
    console.log(
      `resume: ${fmt(resume.bigMedianMs)} ms with ${fmt(resume.archivedMessages)} archived (${resume.visibleMessagesBig} visible) vs ${fmt(resume.smallMedianMs)} ms with only ${resume.visibleMessagesSmall} → ratio ${fmt(resume.ratio)} (median of ${resume.runs})`,
    );
    const undo = benchUndo(fixture);
    console.log(
      `undo a compaction of that session (/uncompact): replaying its log of ${fmt(undo.logEntries)} entries ${fmt(undo.deriveMs)} ms, the preview ${fmt(undo.previewMs)} ms, the revert (record + cache) ${fmt(undo.revertMs)} ms; ${fmt(undo.visibleAfter)} visible after`,
    );
    const search = await benchSearch({ fixture });
    console.log(
      `search over ${fmt(search.archivedMessages)} archived messages, ${search.queries.length} queries (${search.queries.map((q) => JSON.stringify(q)).join(', ')}):`,
    );
    console.log(
      `  FTS5 ${fmt(search.ftsMs)} ms vs LIKE scan ${fmt(search.likeMs)} ms → FTS ${fmt(search.ratio, 1)}× faster (hits FTS ${search.ftsHits.join('/')}, LIKE ${search.likeHits.join('/')})`,
    );
  } finally {
    fixture.cleanup();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
