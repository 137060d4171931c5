// Custom slash commands: Markdown files whose body becomes the prompt, the way people keep them
// for Claude Code (`.claude/commands/review.md` → `/review`). Read from the project's
// `.agent/commands/` and `.claude/commands/`, then the person's `~/.config/agent/commands/`
// (XDG_CONFIG_HOME) and `~/.claude/commands/`; the first one found of a name wins. A subfolder
// makes a namespace: `frontend/review.md` is `/frontend:review`. Optional YAML frontmatter:
// `description`, `argument-hint`, `model`, `allowed-tools`. The body takes `$ARGUMENTS` (all
// the arguments as typed) and `$1`…`$9` (the arguments split as a shell would: `$1` is the
// first, as in a shell script; Claude Code counts from `$0`); `!`command`` is replaced by the
// command's output (customRun.ts runs it through the permission gate); `@path` mentions are
// attached when the prompt is sent, as in any prompt.
import { homeDir, world } from '../runtime/world.js';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { CommandInfo } from '../protocol/views.js';
import type { Skill } from '../skills/skillFile.js';
import { yamlProblem } from '../config/yamlProblem.js';

export interface CustomCommand extends CommandInfo {
  /** Lower-case, namespaced with ':' (`frontend:review`). */
  name: string;
  description: string;
  /** The frontmatter's argument-hint. */
  args?: string;
  model?: string;
  /** The frontmatter's allowed-tools, as written (parsed with parseToolList when run). */
  allowedTools?: string | string[];
  body: string;
  file: string;
  /** Where it comes from, shown in the slash menu and /help. */
  source: string;
  /** Set for a skill (src/skills) run as /name: its body is loaded as a skill, its code runs once `mayRunCode` says so. */
  skill?: { skill: Skill; mayRunCode: (signal: AbortSignal) => Promise<boolean> };
}

export interface LoadedCommands {
  commands: CustomCommand[];
  /** Files that could not be read or parsed, names that clash with a built-in (the built-in wins). */
  warnings: string[];
}

interface Dir {
  dir: string;
  source: string;
}

export function commandDirs(cwd: string, env: NodeJS.ProcessEnv = world().env, home = homeDir()): Dir[] {
  const xdg = env['XDG_CONFIG_HOME'];
  const config = xdg?.startsWith('/') ? xdg : join(home, '.config');
  return [
    { dir: join(cwd, '.agent', 'commands'), source: 'project' },
    { dir: join(cwd, '.claude', 'commands'), source: 'project, .claude' },
    { dir: join(config, 'agent', 'commands'), source: 'user' },
    { dir: join(home, '.claude', 'commands'), source: 'user, .claude' },
  ];
}

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/;

/** The frontmatter's fields (YAML) and the body after it. */
async function parseFile(file: string, text: string): Promise<{ meta: Record<string, unknown>; body: string }> {
  const m = FRONTMATTER.exec(text);
  if (!m) return { meta: {}, body: text };
  // the bundle may hand the package over as its CommonJS namespace
  const mod = (await import('yaml')) as typeof import('yaml') & { default?: typeof import('yaml') };
  const parse = typeof mod.parse === 'function' ? mod.parse : mod.default!.parse;
  let meta: unknown;
  try {
    meta = parse(m[1]!);
  } catch (e) {
    throw new Error(`${file}: the frontmatter is not valid YAML (${yamlProblem(e)})`);
  }
  if (meta !== null && meta !== undefined && (typeof meta !== 'object' || Array.isArray(meta)))
    throw new Error(`${file}: the frontmatter must be "key: value" lines`);
  return { meta: (meta ?? {}) as Record<string, unknown>, body: text.slice(m[0].length) };
}

const optString = (file: string, meta: Record<string, unknown>, key: string): string | undefined => {
  const v = meta[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string' || typeof v === 'number') return String(v);
  throw new Error(`${file}: field "${key}" must be text`);
};

/** Reads every command file; `builtins` are the names a custom command may not take. */
export async function loadCustomCommands(dirs: readonly Dir[], builtins: readonly string[]): Promise<LoadedCommands> {
  const out: LoadedCommands = { commands: [], warnings: [] };
  const seen = new Set<string>();
  for (const { dir, source } of dirs) {
    // most folders do not exist: fast-glob (~120 KB of code to compile) loads only for one that does
    if (!existsSync(dir)) continue;
    let files: string[];
    try {
      const { default: fg } = await import('fast-glob');
      files = (await fg('**/*.md', { cwd: dir, absolute: true, onlyFiles: true, followSymbolicLinks: true })).sort();
    } catch {
      continue;
    }
    for (const file of files) {
      const name = relative(dir, file).slice(0, -3).split(sep).join(':').toLowerCase();
      if (!/^[a-z][\w:-]*$/.test(name)) {
        out.warnings.push(`${file}: not a command name ("${name}" must start with a letter and hold only letters, digits, -, _ and folders)`);
        continue;
      }
      if (builtins.includes(name)) {
        out.warnings.push(`${file}: /${name} is a built-in command, which wins; rename the file to use it`);
        continue;
      }
      if (seen.has(name)) continue;
      try {
        const { meta, body } = await parseFile(file, readFileSync(file, 'utf8'));
        const tools = meta['allowed-tools'];
        if (tools !== undefined && typeof tools !== 'string' && !(Array.isArray(tools) && tools.every((t) => typeof t === 'string'))) {
          throw new Error(`${file}: field "allowed-tools" must be a list of tool names or a comma-separated string`);
        }
        const firstLine = body.trim().split('\n')[0]?.trim() ?? '';
        const description = optString(file, meta, 'description') ?? (firstLine.length > 80 ? `${firstLine.slice(0, 79)}…` : firstLine);
        const hint = optString(file, meta, 'argument-hint');
        const model = optString(file, meta, 'model');
        seen.add(name);
        out.commands.push({
          name,
          description,
          body,
          file,
          source: `${source}: ${relative(join(dir, '..', '..'), file)}`,
          ...(hint ? { args: hint } : {}),
          ...(model ? { model } : {}),
          ...(tools !== undefined ? { allowedTools: tools as string | string[] } : {}),
        });
      } catch (e) {
        out.warnings.push((e as Error).message.startsWith(file) ? (e as Error).message : `${file}: ${(e as Error).message}`);
      }
    }
  }
  return out;
}

/** The arguments split as a shell would split them: blanks separate, quotes group. */
export function splitArgs(args: string): string[] {
  const out: string[] = [];
  const re = /"((?:\\.|[^"\\])*)"|'([^']*)'|(\S+)/g;
  for (const m of args.matchAll(re)) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3] ?? ''));
  return out;
}

/** `!`command`` in a body. */
export const SHELL_INLINE = /!`([^`\n]+)`/g;

/**
 * The body with its arguments in place: `$ARGUMENTS`, `$1`…`$9` (missing ones empty). A body
 * that uses neither gets the arguments appended, as Claude Code does.
 */
export function substituteArgs(body: string, args: string): string {
  const words = splitArgs(args);
  const uses = /\$ARGUMENTS|\$[1-9]/.test(body);
  const text = body.replace(/\$ARGUMENTS|\$([1-9])/g, (_all, n: string | undefined) => (n === undefined ? args.trim() : (words[Number(n) - 1] ?? '')));
  return !uses && args.trim() !== '' ? `${text.trimEnd()}\n\nARGUMENTS: ${args.trim()}` : text;
}

/** The body with each !`command` replaced by what `run` returns for it (in order). */
export async function inlineShell(body: string, run: (command: string) => Promise<string>): Promise<string> {
  const parts: string[] = [];
  let last = 0;
  for (const m of body.matchAll(SHELL_INLINE)) {
    parts.push(body.slice(last, m.index), await run(m[1]!.trim()));
    last = m.index + m[0].length;
  }
  parts.push(body.slice(last));
  return parts.join('');
}
