// Render cost of the TUI per streamed chunk and per keystroke, with 20, 200 and 2,000 messages
// already in the transcript. The figures that matter are the ratios against the smallest
// transcript, measured in one run: finished items are printed once through <Static>, so a long
// session should cost no more per update than a short one (ratios near 1).
//
//   npx tsx bench/ui.ts            (or import { runUiBench } from a bench runner)
import { EventEmitter } from 'node:events';
import { pathToFileURL } from 'node:url';
import { createElement } from 'react';
import { render } from 'ink';
import type { Message } from '../src/llm/messages.js';
import { App } from '../src/ui/app.js';
import { itemRenderCount } from '../src/ui/components/ItemView.js';
import { loadMarkdown } from '../src/ui/markdown-lazy.js';
import type { UiController } from '../src/ui/controller.js';
import type { CommandInfo, ContextUsageView, HistoryPage, SessionView } from '../src/protocol/views.js';
import type { Event } from '../src/protocol/events.js';
import { plainTheme } from '../src/ui/theme.js';
import { FakeStdin } from '../test/ui/fakes.js';

export interface UiBenchOptions {
  /** Messages already in the transcript, one app per size. */
  sizes?: number[];
  /** Updates timed per round and size. */
  updates?: number;
  /** Rounds; the median round counts (the rounds alternate between sizes to share the noise). */
  rounds?: number;
}

export interface UiBenchRow {
  messages: number;
  /** Time to print the initial transcript (once, at start). */
  startupMs: number;
  chunkMs: number;
  /** Per streamed thinking delta (the live Thinking row). */
  thinkingMs: number;
  keyMs: number;
  /** Against the smallest transcript. */
  chunkRatio: number;
  keyRatio: number;
  /** Transcript items rendered during the timed updates (should be 0). */
  itemsRenderedWhileTiming: number;
}

/** Discards frames; remembers when the last one was written (the end of a render). */
class NullStdout extends EventEmitter {
  readonly isTTY = true;
  readonly columns = 100;
  readonly rows = 40;
  writes = 0;
  lastWriteAt = 0;
  write = (_data: string): boolean => {
    this.writes++;
    this.lastWriteAt = performance.now();
    return true;
  };
}

class BenchController implements UiController {
  private listener: ((ev: Event) => void) | null = null;
  constructor(private readonly transcript: Message[]) {}
  viewOf(): undefined {
    return undefined;
  }
  press(): boolean {
    return false;
  }
  session(): SessionView {
    return { id: 's_bench0000bench00', title: 'bench', model: 'claude-sonnet-4-5', provider: 'anthropic', cwd: '/home/dev/project' };
  }
  initialTranscript(): Message[] {
    return this.transcript;
  }
  subscribe(listener: (ev: Event) => void): () => void {
    this.listener = listener;
    return () => {
      this.listener = null;
    };
  }
  submit(): void {}
  interrupt(): boolean {
    return true;
  }
  cancelCompaction(): boolean {
    return false;
  }
  commands(): CommandInfo[] {
    return [{ name: 'compact', description: 'Summarize the conversation' }];
  }
  promptHistory(): string[] {
    return [];
  }
  async resume(): Promise<void> {}
  contextUsage(): ContextUsageView {
    return {
      tokens: 90_000,
      contextWindow: 200_000,
      effectiveWindow: 180_000,
      percentLeft: 50,
      state: 'ok',
      autoCompactAtPercent: 92,
      autoCompactEnabled: true,
    };
  }
  searchArchive(query: string, page: number): HistoryPage {
    return { query, page, pageSize: 10, hits: [], hasMore: false };
  }
  cyclePermissionMode(): void {}
  async exit(): Promise<void> {}
  emit(ev: Event): void {
    this.listener?.(ev);
  }
}

/** A plausible history: prompts, Markdown replies with code, tool calls and their results. */
export function syntheticHistory(n: number): Message[] {
  const out: Message[] = [];
  let i = 0;
  const at = (): number => 1_700_000_000_000 + out.length * 1000;
  while (out.length < n) {
    const k = i++;
    out.push({
      id: `u${k}`,
      role: 'user',
      kind: 'normal',
      createdAt: at(),
      blocks: [{ type: 'text', text: `Please look at module ${k} and fix the failing test.` }],
    });
    if (out.length >= n) break;
    if (k % 3 === 0 && out.length + 2 < n) {
      out.push({
        id: `a${k}t`,
        role: 'assistant',
        kind: 'normal',
        createdAt: at(),
        blocks: [
          { type: 'text', text: 'Reading it.' },
          { type: 'tool_use', id: `t${k}`, name: 'FileRead', input: { file_path: `src/mod${k}.ts` } },
        ],
      });
      out.push({
        id: `r${k}`,
        role: 'user',
        kind: 'normal',
        createdAt: at(),
        blocks: [{ type: 'tool_result', toolUseId: `t${k}`, content: `export const m${k} = ${k};\n`.repeat(30), isError: false }],
      });
      if (out.length >= n) break;
    }
    out.push({
      id: `a${k}`,
      role: 'assistant',
      kind: 'normal',
      createdAt: at(),
      blocks: [
        {
          type: 'text',
          text: `## Module ${k}\n\nThe test fails because \`m${k}\` is **off by one**:\n\n- read the file\n- fix the constant\n\n\`\`\`ts\nexport const m${k} = ${k + 1};\n\`\`\``,
        },
      ],
    });
  }
  return out.slice(0, n);
}

interface Mounted {
  size: number;
  controller: BenchController;
  stdin: FakeStdin;
  stdout: NullStdout;
  startupMs: number;
  unmount: () => void;
  keys: number;
}

const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 20));

async function mount(size: number): Promise<Mounted> {
  const controller = new BenchController(syntheticHistory(size));
  const stdout = new NullStdout();
  const stdin = new FakeStdin();
  const t0 = performance.now();
  const instance = render(createElement(App, { controller, theme: plainTheme }), {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    stderr: new NullStdout() as unknown as NodeJS.WriteStream,
    // Unthrottled and synchronous: every update is rendered in full before the timer stops.
    debug: true,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  const startupMs = performance.now() - t0;
  await settle();
  // A turn is running: the live region shows the spinner, the streaming reply and a running tool.
  controller.emit({ type: 'turn_start', turnId: 'bench' });
  controller.emit({ type: 'request_start', step: 1, attempt: 1 });
  controller.emit({ type: 'tool_start', id: 'run', name: 'Bash', input: {}, summary: 'npm test' });
  await settle();
  return { size, controller, stdin, stdout, startupMs, unmount: () => instance.unmount(), keys: 0 };
}

const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

/**
 * Times one update: from the event to the frame written. React renders store updates in a
 * microtask, so the clock stops at the frame's write, not when the event loop comes back.
 */
async function timeUpdate(m: Mounted, update: () => void): Promise<number> {
  const before = m.stdout.writes;
  const t0 = performance.now();
  update();
  await nextTurn();
  if (m.stdout.writes === before) throw new Error('an update was not rendered: the timing would be wrong');
  return m.stdout.lastWriteAt - t0;
}

async function timeChunks(m: Mounted, count: number): Promise<number> {
  let total = 0;
  for (let i = 0; i < count; i++) {
    const text = `token ${i} of the streamed reply${i % 12 === 0 ? '\n' : ' '}`;
    total += await timeUpdate(m, () => m.controller.emit({ type: 'text_delta', text }));
  }
  return total / count;
}

/** Thinking streamed as the model thinks: each delta updates the live row's thinking tokens. */
async function timeThinking(m: Mounted, count: number): Promise<number> {
  let total = 0;
  for (let i = 0; i < count; i++) {
    const text = `thought ${i}: weigh the next step of the plan carefully. `;
    total += await timeUpdate(m, () => m.controller.emit({ type: 'thinking_delta', text }));
  }
  return total / count;
}

async function timeKeys(m: Mounted, count: number): Promise<number> {
  let total = 0;
  for (let i = 0; i < count; i++) {
    // Type, and clear the line now and then so that every size edits the same short prompt.
    const key = m.keys % 40 === 39 ? '\u0015' : String.fromCharCode(97 + (m.keys % 26));
    m.keys++;
    total += await timeUpdate(m, () => m.stdin.write(key));
  }
  return total / count;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

export async function runUiBench(opts: UiBenchOptions = {}): Promise<UiBenchRow[]> {
  const sizes = opts.sizes ?? [20, 200, 2000];
  const updates = opts.updates ?? 150;
  const rounds = opts.rounds ?? 5;
  const apps: Mounted[] = [];
  // the app loads its Markdown renderer after the first frame; rendering costs are measured with it in
  await loadMarkdown();
  for (const size of sizes) apps.push(await mount(size));
  try {
    // Warm-up: JIT, Markdown instances, the streaming text reaching its displayed maximum.
    for (const m of apps) {
      await timeChunks(m, updates);
      await timeKeys(m, updates);
    }
    const chunk = new Map<number, number[]>(sizes.map((s) => [s, []]));
    const key = new Map<number, number[]>(sizes.map((s) => [s, []]));
    const think = new Map<number, number[]>(sizes.map((s) => [s, []]));
    const itemsBefore = itemRenderCount();
    for (let r = 0; r < rounds; r++) {
      // Alternate the order so that drift (GC, other processes) does not favour one size.
      const order = r % 2 === 0 ? apps : [...apps].reverse();
      for (const m of order) {
        think.get(m.size)!.push(await timeThinking(m, updates));
        chunk.get(m.size)!.push(await timeChunks(m, updates));
        key.get(m.size)!.push(await timeKeys(m, updates));
      }
      await settle();
    }
    const itemsRendered = itemRenderCount() - itemsBefore;
    const base = apps[0]!;
    const baseChunk = median(chunk.get(base.size)!);
    const baseKey = median(key.get(base.size)!);
    return apps.map((m) => {
      const c = median(chunk.get(m.size)!);
      const k = median(key.get(m.size)!);
      return {
        messages: m.size,
        startupMs: m.startupMs,
        chunkMs: c,
        thinkingMs: median(think.get(m.size)!),
        keyMs: k,
        chunkRatio: c / baseChunk,
        keyRatio: k / baseKey,
        itemsRenderedWhileTiming: itemsRendered,
      };
    });
  } finally {
    for (const m of apps) m.unmount();
  }
}

export function formatUiBench(rows: UiBenchRow[]): string {
  const lines = ['UI render cost per update (median of rounds; ratios against the smallest transcript)', ''];
  lines.push('messages  startup   per chunk   ratio   per keystroke   ratio   per thinking chunk');
  for (const r of rows) {
    lines.push(
      `${String(r.messages).padStart(8)}  ${`${r.startupMs.toFixed(0)}ms`.padStart(7)}  ${`${r.chunkMs.toFixed(3)}ms`.padStart(10)}  ${r.chunkRatio.toFixed(2).padStart(6)}  ${`${r.keyMs.toFixed(3)}ms`.padStart(14)}  ${r.keyRatio.toFixed(2).padStart(6)}  ${`${r.thinkingMs.toFixed(3)}ms`.padStart(18)}`,
    );
  }
  lines.push('', `transcript items rendered during the timed updates: ${rows[0]?.itemsRenderedWhileTiming ?? 0}`);
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runUiBench()
    .then((rows) => {
      console.log(formatUiBench(rows));
      process.exit(0);
    })
    .catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
}
