// The ripgrep Grep engine. It yields the same per-file results as the JavaScript one:
// the rules (.gitignore from the ignore root, hidden files searched, .git skipped,
// binary and large files skipped) are set by flags, the glob filter runs here.
import { relative, resolve } from 'node:path';
import { toSlash } from './paths.js';
import type { DirTarget } from './grepJs.js';
import { HitCollector, type FileHit, type GrepQuery } from './grepTypes.js';

interface RgText {
  text?: string;
  bytes?: string;
}

const rgText = (t: RgText | undefined): string =>
  t?.text !== undefined ? t.text : t?.bytes !== undefined ? new TextDecoder().decode(Buffer.from(t.bytes, 'base64')) : '';

/**
 * Runs ripgrep over a directory. Returns undefined when ripgrep fails (cannot start,
 * rejects the pattern, reports an error): the caller then searches in JavaScript.
 */
export async function grepDirRg(rgPath: string, rustPattern: string, q: GrepQuery, target: DirTarget, signal: AbortSignal): Promise<FileHit[] | undefined> {
  const args = [
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
  if (q.mode === 'files') args.push('--files-with-matches', '--null');
  else if (q.mode === 'count') args.push('--count', '--null', '--with-filename');
  else args.push('--json', ...(q.contextLines > 0 ? ['--context', String(q.contextLines)] : []));
  args.push('--regexp', rustPattern, '--', '.');

  const { execa } = await import('execa');
  const sub = execa(rgPath, args, { cwd: target.dir, stdin: 'ignore', stderr: 'ignore', buffer: false, reject: false, cancelSignal: signal });
  const keep = (p: string): { abs: string; ok: boolean } => {
    const abs = resolve(target.dir, p);
    return { abs, ok: !target.filter || target.filter(toSlash(relative(target.dir, abs))) };
  };
  const hits: FileHit[] = [];
  const stdout = sub.stdout;
  if (!stdout) return undefined;

  if (q.mode === 'lines') {
    let current: { abs: string; ok: boolean; c: HitCollector } | undefined;
    // node:readline is loaded here, with execa, not on every start (~2 ms)
    const { createInterface } = await import('node:readline');
    const rl = createInterface({ input: stdout, crlfDelay: Infinity });
    for await (const line of rl) {
      if (line === '') continue;
      let msg: { type?: string; data?: { path?: RgText; lines?: RgText; line_number?: number } };
      try {
        msg = JSON.parse(line) as typeof msg;
      } catch {
        continue;
      }
      const data = msg.data;
      if (msg.type === 'begin') {
        current = { ...keep(rgText(data?.path)), c: new HitCollector(q.maxLinesPerFile, q.contextLines) };
      } else if ((msg.type === 'match' || msg.type === 'context') && current?.ok && data?.line_number !== undefined) {
        current.c.add(data.line_number, rgText(data.lines).replace(/\n$/, ''), msg.type === 'match');
      } else if (msg.type === 'end' && current) {
        if (current.ok && current.c.matches > 0) hits.push(current.c.hit(current.abs));
        current = undefined;
      }
    }
  } else {
    let out = '';
    stdout.setEncoding('utf8');
    for await (const chunk of stdout) out += String(chunk);
    if (q.mode === 'files') {
      for (const p of out.split('\0')) {
        if (p === '') continue;
        const k = keep(p);
        if (k.ok) hits.push({ path: k.abs, count: 1, lines: [] });
      }
    } else {
      for (const row of out.split('\n')) {
        const sep = row.lastIndexOf('\0');
        if (sep === -1) continue;
        const k = keep(row.slice(0, sep));
        const count = Number(row.slice(sep + 1));
        if (k.ok && count > 0) hits.push({ path: k.abs, count, lines: [] });
      }
    }
  }
  const result = await sub;
  if (signal.aborted) return [];
  if (result.failed && result.exitCode !== 1) return undefined;
  return hits;
}
