// Grep on a large tree: figures measured in one run, no pass/fail.
//   npx tsx bench/grep.ts
// A generated tree (FILES source files, ~60 MB, nested directories, a .gitignore'd build
// directory) searched for a rare identifier and for a common word, lines mode, by each engine
// Grep can use: the packaged ripgrep (the default), `rg` on PATH when there is one, and the
// JavaScript search. The issue that set the bar: 17,700 files / 243 MB took 2.30 s with the
// JavaScript search against 0.27 s with ripgrep.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { rgPath } from '@vscode/ripgrep';
import { runGrep, type GrepInput } from '../src/tools/grep.js';
import { findOnPath } from '../src/tools/shell.js';
import { FileTracker } from '../src/tools/fileTracker.js';

const FILES = 6_000;
const FILE_BYTES = 10_000;

function sourceText(i: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let n = 0; size < FILE_BYTES; n++) {
    const line = `export function handler${i}_${n}(input: Request${(i * 31 + n) % 97}): Promise<Response> { return process(input, ${n}); }`;
    lines.push(line);
    size += line.length + 1;
  }
  if (i % 1_000 === 7) lines.splice(lines.length >> 1, 0, 'const RARE_NEEDLE_7731 = true;');
  return `${lines.join('\n')}\n`;
}

function makeTree(root: string): number {
  let bytes = 0;
  writeFileSync(join(root, '.gitignore'), 'build/\n');
  for (let i = 0; i < FILES; i++) {
    const dir = join(root, `pkg${i % 40}`, `mod${i % 13}`);
    mkdirSync(dir, { recursive: true });
    const text = sourceText(i);
    writeFileSync(join(dir, `file${i}.ts`), text);
    bytes += text.length;
  }
  mkdirSync(join(root, 'build'));
  for (let i = 0; i < 200; i++) writeFileSync(join(root, 'build', `out${i}.js`), sourceText(i));
  return bytes;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function time(rg: string | null, input: GrepInput, root: string, runs: number): Promise<{ ms: number; engine: string; firstLine: string }> {
  const times: number[] = [];
  let engine = '';
  let firstLine = '';
  for (let i = 0; i < runs; i++) {
    const ctx = { cwd: root, signal: new AbortController().signal, files: new FileTracker() };
    const t0 = performance.now();
    const r = await runGrep(input, ctx, { rgPath: rg, maxFileBytes: 10 * 1024 * 1024, defaultMaxResults: 100 });
    times.push(performance.now() - t0);
    engine = r.engine ?? '?';
    firstLine = r.output.content.split('\n')[0] ?? '';
  }
  return { ms: median(times), engine, firstLine };
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'agent-bench-grep-'));
  try {
    const t0 = performance.now();
    const bytes = makeTree(root);
    console.log(
      `tree: ${FILES.toLocaleString('en-US')} files, ${(bytes / 1024 / 1024).toFixed(1)} MB (+200 ignored), made in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const engines: Array<[string, string | null]> = [['packaged rg (default)', rgPath]];
    const onPath = findOnPath('rg');
    if (onPath) engines.push([`rg on PATH (${onPath})`, onPath]);
    engines.push(['JavaScript', null]);
    const searches: Array<[string, GrepInput]> = [
      ['rare identifier, lines', { pattern: 'RARE_NEEDLE_\\d+', outputMode: 'lines' }],
      ['common word, files', { pattern: 'Promise<Response>', outputMode: 'files' }],
    ];
    for (const [what, input] of searches) {
      console.log(`\n${what}:`);
      const rows: Array<[string, number]> = [];
      for (const [name, rg] of engines) {
        await time(rg, input, root, 1); // warm the page cache
        const r = await time(rg, input, root, 3);
        rows.push([name, r.ms]);
        console.log(`  ${name.padEnd(28)} ${r.ms.toFixed(0).padStart(6)} ms  (${r.engine}; ${r.firstLine.slice(0, 60)})`);
      }
      const js = rows.find(([n]) => n === 'JavaScript')![1];
      console.log(`  packaged rg / JavaScript: ${(rows[0]![1] / js).toFixed(2)}×`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
