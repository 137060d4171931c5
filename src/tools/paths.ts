import { homeDir } from '../runtime/world.js';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** Resolves a path the model gave: relative to cwd unless absolute; a leading ~ means the home directory. */
export function resolvePath(cwd: string, p: string): string {
  if (p === '~') return homeDir();
  if (p.startsWith('~/')) return resolve(homeDir(), p.slice(2));
  return resolve(cwd, p);
}

/** True when `abs` is `dir` or inside it. */
export function isInside(dir: string, abs: string): boolean {
  const rel = relative(dir, abs);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** How a path is shown to the model: relative to cwd when inside it, absolute otherwise; always with / separators. */
export function displayPath(cwd: string, abs: string): string {
  if (!isInside(cwd, abs)) return abs;
  const rel = relative(cwd, abs);
  return rel === '' ? '.' : toSlash(rel);
}

export const toSlash = (p: string): string => (sep === '/' ? p : p.split(sep).join('/'));
