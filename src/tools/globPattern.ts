import { isAbsolute, join, resolve } from 'node:path';

/**
 * Splits a glob into the directory its static leading segments name and the rest, so
 * "../lib/**\/*.ts" or "/abs/dir/*.js" walk from that directory: `base` is absolute,
 * `rest` relative to it.
 */
export async function splitGlob(root: string, pattern: string): Promise<{ base: string; rest: string }> {
  // fast-glob (with micromatch) loads when a glob runs, not with the tool list
  const { default: fg } = await import('fast-glob');
  const abs = isAbsolute(pattern);
  const segments = pattern.split('/').filter((s, i) => s !== '' || i === 0);
  let i = 0;
  // a segment with brace or group syntax may belong to a pattern spanning several segments
  const isStatic = (seg: string): boolean => seg === '' || (!fg.isDynamicPattern(seg) && !/[{}()[\]!\\]/.test(seg));
  while (i < segments.length - 1 && isStatic(segments[i]!)) i++;
  const staticPart = segments.slice(0, i).join('/');
  const base = abs ? resolve('/', staticPart === '' ? '/' : staticPart) : join(root, staticPart);
  return { base: resolve(base), rest: segments.slice(i).join('/') };
}

/** "*.{ts,tsx}" → ["*.ts", "*.tsx"] (nested braces too); a pattern without braces is returned as is. */
export function expandBraces(pattern: string): string[] {
  let depth = 0;
  let open = -1;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '{') {
      if (depth === 0) open = i;
      depth++;
    } else if (c === '}' && depth > 0) {
      depth--;
      if (depth === 0) {
        const inner = pattern.slice(open + 1, i);
        const alternatives = splitTopLevel(inner);
        if (alternatives.length < 2) continue;
        const head = pattern.slice(0, open);
        const tail = pattern.slice(i + 1);
        return alternatives.flatMap((alt) => expandBraces(head + alt + tail));
      }
    }
  }
  return [pattern];
}

function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(s.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(s.slice(start));
  return parts;
}
