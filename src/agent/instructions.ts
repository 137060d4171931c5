// Project instructions: AGENTS.md files from the repository root down to the working
// directory (CLAUDE.md where a directory has no AGENTS.md), plus a personal AGENTS.md under the
// config home. They go into the system prompt, so a compaction never drops them.
import { homeDir, world } from '../runtime/world.js';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fmtInt } from '../tools/format.js';

/** All instruction files together are cut beyond this many characters (they live in every request). */
export const INSTRUCTIONS_MAX_CHARS = 40_000;

export interface InstructionFile {
  path: string;
  scope: 'personal' | 'project';
  text: string;
  /** The file was longer than what is kept. */
  truncated: boolean;
}

/** `$XDG_CONFIG_HOME/agent`, else `~/.config/agent`: where the personal AGENTS.md lives. */
export function configHome(env: NodeJS.ProcessEnv = world().env, home = homeDir()): string {
  const xdg = env['XDG_CONFIG_HOME'];
  return join(xdg?.startsWith('/') ? xdg : join(home, '.config'), 'agent');
}

/** The nearest ancestor of dir holding .git, or undefined outside a repository. */
function repoRoot(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return d;
    if (dirname(d) === d) return undefined;
  }
}

/** The directories from the repository root down to cwd (only cwd outside a repository). */
function chain(cwd: string): string[] {
  const root = repoRoot(cwd);
  if (!root) return [cwd];
  const dirs: string[] = [];
  for (let d = cwd; ; d = dirname(d)) {
    dirs.unshift(d);
    if (d === root || dirname(d) === d) break;
  }
  return dirs;
}

function readText(path: string): string | undefined {
  try {
    if (!statSync(path).isFile()) return undefined;
    const text = readFileSync(path, 'utf8');
    return text.trim() === '' ? undefined : text;
  } catch {
    return undefined;
  }
}

/** The instruction files in force for cwd, personal first, then from the root down (nearer files later, so they win). */
export function loadInstructions(cwd: string, opts: { configHome?: string } = {}): InstructionFile[] {
  const found: Array<{ path: string; scope: InstructionFile['scope']; text: string }> = [];
  const personal = join(opts.configHome ?? configHome(), 'AGENTS.md');
  const own = readText(personal);
  if (own !== undefined) found.push({ path: personal, scope: 'personal', text: own });
  for (const dir of chain(resolve(cwd))) {
    for (const name of ['AGENTS.md', 'CLAUDE.md']) {
      const path = join(dir, name);
      const text = readText(path);
      if (text === undefined) continue;
      found.push({ path, scope: 'project', text });
      break;
    }
  }
  let budget = INSTRUCTIONS_MAX_CHARS;
  return found.map((f) => {
    const kept = f.text.slice(0, Math.max(0, budget));
    budget -= kept.length;
    return { ...f, text: kept, truncated: kept.length < f.text.length };
  });
}

/** The files as one text for the system prompt, each under a heading naming it. */
export function renderInstructions(files: readonly InstructionFile[], cwd: string): string {
  return files
    .map((f) => {
      const where = f.scope === 'personal' ? `${f.path} (the user's personal instructions)` : relative(cwd, f.path) || f.path;
      const cut = f.truncated ? `\n[truncated: the instruction files are limited to ${fmtInt(INSTRUCTIONS_MAX_CHARS)} characters in all]` : '';
      return `## ${where}\n\n${f.text.trim()}${cut}`;
    })
    .join('\n\n');
}
