// The ripgrep Grep engine. It yields the same per-file results as the JavaScript one:
// the rules (.gitignore from the ignore root, hidden files searched, .git skipped,
// binary and large files skipped) are set by flags, the glob filter runs here.
//
// Lines mode searches twice: a count of every file's matching lines first, then the lines of
// only the files the output can show (in path order, until maxResults matches). One search for
// every line printed a common word's 700,000 lines as ~200 MB of JSON over a 17,700-file tree,
// ~10× the search itself, to show 100 of them (issue 48). ripgrep runs through node:child_process,
// not execa, whose loading cost a process's first Grep more than a small search.
import { spawn } from 'node:child_process';
import { relative, resolve, sep } from 'node:path';
import { toSlash } from './paths.js';
import type { DirTarget } from './grepJs.js';
import { HitCollector, type FileHit, type GrepQuery } from './grepTypes.js';

interface RgText {
  text?: string;
  bytes?: string;
}

const rgText = (t: RgText | undefined): string =>
  t?.text !== undefined ? t.text : t?.bytes !== undefined ? new TextDecoder().decode(Buffer.from(t.bytes, 'base64')) : '';

/** ripgrep's whole standard output; undefined when it failed (could not start, or exit status over 1: 1 is "no match"). */
function rgOutput(rgPath: string, args: string[], cwd: string, signal: AbortSignal): Promise<string | undefined> {
  return new Promise((done) => {
    const child = spawn(rgPath, args, { cwd, stdio: ['ignore', 'pipe', 'ignore'], signal });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.on('error', () => done(signal.aborted ? '' : undefined));
    child.on('close', (code) => done(signal.aborted ? '' : code === 0 || code === 1 ? Buffer.concat(chunks).toString('utf8') : undefined));
  });
}

/**
 * Runs ripgrep over a directory. Returns undefined when ripgrep fails (cannot start,
 * rejects the pattern, reports an error): the caller then searches in JavaScript.
 */
export async function grepDirRg(rgPath: string, rustPattern: string, q: GrepQuery, target: DirTarget, signal: AbortSignal): Promise<FileHit[] | undefined> {
  const flags = [
    '--no-config',
    '--hidden',
    '--no-require-git',
    '--no-ignore-dot',
    '--no-ignore-global',
    '--no-ignore-exclude',
    '--max-filesize',
    String(q.maxFileBytes),
    '--glob',
    '!.git',
    q.ignoreCase ? '--ignore-case' : '--case-sensitive',
  ];
  const pattern = ['--regexp', rustPattern, '--'];
  const filter = target.filter;
  const under = target.dir.endsWith(sep) ? target.dir : `${target.dir}${sep}`;
  // ripgrep names a file "./a/b.ts" under the searched folder: joined as it is (resolve() of 17,700 paths showed in a profile)
  const keep = (p: string): { abs: string; ok: boolean } => {
    const abs = p.startsWith('./') && !p.includes('/../') && !p.includes('/./') ? `${under}${p.slice(2)}` : resolve(target.dir, p);
    return { abs, ok: !filter || filter(toSlash(relative(target.dir, abs))) };
  };
  const hits: FileHit[] = [];
  if (q.mode === 'files') {
    const out = await rgOutput(rgPath, [...flags, '--files-with-matches', '--null', ...pattern, '.'], target.dir, signal);
    if (out === undefined) return undefined;
    for (const p of out.split('\0')) {
      if (p === '') continue;
      const k = keep(p);
      if (k.ok) hits.push({ path: k.abs, count: 1, lines: [] });
    }
    return hits;
  }
  const counted = await rgOutput(rgPath, [...flags, '--count', '--null', '--with-filename', ...pattern, '.'], target.dir, signal);
  if (counted === undefined) return undefined;
  for (const row of counted.split('\n')) {
    const sep = row.lastIndexOf('\0');
    if (sep === -1) continue;
    const k = keep(row.slice(0, sep));
    const count = Number(row.slice(sep + 1));
    if (k.ok && count > 0) hits.push({ path: k.abs, count, lines: [] });
  }
  if (q.mode === 'count' || hits.length === 0 || signal.aborted) return hits;
  // the output lists files in path order and stops at maxLinesPerFile (maxResults) matches
  hits.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const shown: FileHit[] = [];
  for (let n = 0; n < q.maxLinesPerFile && shown.length < hits.length; ) {
    const h = hits[shown.length]!;
    shown.push(h);
    n += Math.min(h.count, q.maxLinesPerFile);
  }
  const context = q.contextLines > 0 ? ['--context', String(q.contextLines)] : [];
  const json = await rgOutput(
    rgPath,
    [...flags, '--json', '--max-count', String(q.maxLinesPerFile), ...context, ...pattern, ...shown.map((h) => relative(target.dir, h.path))],
    target.dir,
    signal,
  );
  if (json === undefined) return undefined;
  const lines = new Map<string, HitCollector>();
  let current: HitCollector | undefined;
  for (const line of json.split('\n')) {
    if (line === '') continue;
    let msg: { type?: string; data?: { path?: RgText; lines?: RgText; line_number?: number } };
    try {
      msg = JSON.parse(line) as typeof msg;
    } catch {
      continue;
    }
    const data = msg.data;
    if (msg.type === 'begin') {
      current = new HitCollector(q.maxLinesPerFile, q.contextLines);
      lines.set(resolve(target.dir, rgText(data?.path)), current);
    } else if ((msg.type === 'match' || msg.type === 'context') && current && data?.line_number !== undefined) {
      current.add(data.line_number, rgText(data.lines).replace(/\n$/, ''), msg.type === 'match');
    } else if (msg.type === 'end') {
      current = undefined;
    }
  }
  // every file keeps its whole count; those past the output's end keep no lines
  return hits.map((h) => {
    const c = lines.get(h.path);
    return c && c.matches > 0 ? { ...c.hit(h.path), count: h.count } : h;
  });
}
