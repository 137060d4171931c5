// Edit benchmarks: figures measured in one run, no pass/fail.
//   npx tsx bench/edit.ts
// 1. One Edit (preview + write, as the loop runs it) on files of 1, 2.5 and 5 MB: time should grow linearly with size.
// 2. Edits of 100 vs 1,000 small files: time per edit should stay flat (total linear in the count).
// 3. A session that edits one 100 KB file 200 times (a turn each): database growth from the snapshots.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createEditTool } from '../src/tools/edit.js';
import { createFileReadTool } from '../src/tools/fileRead.js';
import { FileTracker } from '../src/tools/fileTracker.js';
import type { AnyTool, ToolContext, ToolSession } from '../src/tools/types.js';
import { openStore } from '../src/store/index.js';

function sourceText(bytes: number, seed = 1): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `export function handler${i}(input: Request${(i * seed) % 97}): Promise<Response> { return process(input, ${i}); }`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n') + '\n';
}

/** A session in `dir`: its context and its FileRead and Edit, built over what it lends them (a tracker, and `extra`). */
const ctxIn = (dir: string, extra: ToolSession = {}): { c: ToolContext; read: AnyTool; edit: AnyTool } => {
  const lent: ToolSession = { files: new FileTracker(), ...extra };
  return { c: { cwd: dir, signal: new AbortController().signal }, read: createFileReadTool({}, lent) as AnyTool, edit: createEditTool(lent) as AnyTool };
};

async function editOnce({ c, read, edit }: ReturnType<typeof ctxIn>, path: string, oldS: string, newS: string): Promise<number> {
  await read.run(read.parse({ path, limit: 1 }), c);
  const t0 = performance.now();
  const input = edit.parse({ path, old_string: oldS, new_string: newS });
  const p = await edit.preview!(input, c);
  if (!p.ok) throw new Error(p.output.content);
  const out = await edit.run(input, c);
  if (out.isError) throw new Error(out.content);
  return performance.now() - t0;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function largeFiles(dir: string): Promise<void> {
  const rows: Array<[string, number]> = [];
  for (const mb of [1, 2.5, 5]) {
    const path = join(dir, `big-${mb}.ts`);
    const text = sourceText(mb * 1024 * 1024);
    writeFileSync(path, text);
    // a change in the middle: the diff sees the whole file's head and tail
    const mid = Math.floor(text.split('\n').length / 2);
    const times: number[] = [];
    for (let r = 0; r < 9; r++) {
      const from = r % 2 === 0 ? `handler${mid}(` : `handlerX${mid}(`;
      const to = r % 2 === 0 ? `handlerX${mid}(` : `handler${mid}(`;
      times.push(await editOnce(ctxIn(dir), path, from, to));
    }
    rows.push([`${mb} MB`, median(times)]);
  }
  console.log('Edit of one line in a large file (median of 9: preview + write, as the loop runs it):');
  for (const [label, ms] of rows) console.log(`  ${label.padEnd(7)} ${ms.toFixed(1).padStart(8)} ms`);
  console.log(`  5 MB / 1 MB = ${(rows[2]![1] / rows[0]![1]).toFixed(2)}× · 5 MB / 2.5 MB = ${(rows[2]![1] / rows[1]![1]).toFixed(2)}× (linear: 5× and 2×)`);
}

async function manyFiles(dir: string): Promise<void> {
  const per: Array<[number, number]> = [];
  for (const n of [100, 1000]) {
    const sub = mkdtempSync(join(dir, `many-${n}-`));
    for (let i = 0; i < n; i++) writeFileSync(join(sub, `f${i}.ts`), sourceText(2_000, i + 1));
    const s = ctxIn(sub);
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await editOnce(s, `f${i}.ts`, 'handler3(', 'handlerThree(');
    per.push([n, (performance.now() - t0) / n]);
  }
  console.log('Edits of many small files (one session, each read then edited):');
  for (const [n, ms] of per) console.log(`  ${String(n).padStart(5)} files  ${ms.toFixed(3)} ms per edit`);
  console.log(`  per-edit time 1,000 / 100 = ${(per[1]![1] / per[0]![1]).toFixed(2)}× (flat would be 1×)`);
}

async function snapshotGrowth(dir: string): Promise<void> {
  const dbPath = join(dir, 'snap.db');
  const store = openStore(dbPath);
  store.createSession({ id: 's', cwd: dir, provider: 'anthropic', model: 'm' });
  const size = (): number => ['', '-wal'].reduce((s, ext) => s + (statSync(dbPath + ext, { throwIfNoEntry: false })?.size ?? 0), 0);
  const path = join(dir, 'hundred.ts');
  writeFileSync(path, sourceText(100 * 1024));
  const before = size();
  const files = new FileTracker();
  let turnId = '';
  const s = ctxIn(dir, {
    files,
    beforeFileChange: (abs, prior, mode) => void store.saveSnapshot('s', { turnId, path: abs, content: prior ?? null, mode: mode ?? null }),
  });
  const t0 = performance.now();
  for (let i = 0; i < 200; i++) {
    turnId = `u${i}`;
    store.appendMessage('s', { id: turnId, role: 'user', kind: 'normal', createdAt: Date.now(), blocks: [{ type: 'text', text: `edit ${i}` }] }, 3);
    await editOnce(s, 'hundred.ts', `handler${i * 4}(`, `handler${i * 4}_v${i}(`);
  }
  const ms = performance.now() - t0;
  store.close();
  const grown = size() - before;
  const raw = readFileSync(path).length;
  console.log(`Snapshots: 200 turns each editing one ${(raw / 1024).toFixed(0)} KB file`);
  console.log(
    `  database growth ${(grown / 1024 / 1024).toFixed(2)} MB (${(grown / 200 / 1024).toFixed(1)} KB per snapshot; ${((200 * raw) / 1024 / 1024).toFixed(1)} MB uncompressed)`,
  );
  console.log(`  ${(ms / 200).toFixed(2)} ms per turn (edit + snapshot)`);
}

const dir = mkdtempSync(join(tmpdir(), 'agent-bench-edit-'));
try {
  await largeFiles(dir);
  await manyFiles(dir);
  await snapshotGrowth(dir);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
