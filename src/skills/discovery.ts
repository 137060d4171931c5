// Finding skills: `<dir>/<name>/SKILL.md` in the project's `.agent/skills`, `.claude/skills` and
// `.agents/skills` of every directory from the working directory up to the repository root (the
// nearer wins), then the person's `~/.config/agent/skills`, `~/.claude/skills` and
// `~/.agents/skills`. The first skill of a name wins (project over user), with a notice naming
// the one it hides. Nested folders (`src/web/.claude/skills`, below the working directory) are
// found when the model works on a file under them (nestedSkillDirs). The YAML parser loads only
// when there is a SKILL.md.
import { homeDir, world } from '../runtime/world.js';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { parseSkillFile, type ParseYaml, type Skill, type SkillScope } from './skillFile.js';

export interface SkillDir {
  dir: string;
  scope: SkillScope;
  /** How /skills names it ("project .claude/skills"). */
  source: string;
}

export interface SkillCatalogData {
  skills: Skill[];
  /** Broken files (named, with the reason) and hidden duplicates. */
  warnings: string[];
}

const PROJECT_DIRS = ['.agent', '.claude', '.agents'] as const;

/** The nearest ancestor of dir holding .git, or undefined outside a repository. */
function repoRoot(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return d;
    if (dirname(d) === d) return undefined;
  }
}

/** Where skills are looked for, in order of precedence. */
export function skillDirs(cwd: string, env: NodeJS.ProcessEnv = world().env, home = env['HOME'] || homeDir()): SkillDir[] {
  const out: SkillDir[] = [];
  const top = repoRoot(resolve(cwd)) ?? resolve(cwd);
  for (let d = resolve(cwd); ; d = dirname(d)) {
    const rel = relative(resolve(cwd), d);
    for (const p of PROJECT_DIRS) out.push({ dir: join(d, p, 'skills'), scope: 'project', source: `project ${rel ? `${rel}${sep}` : ''}${p}/skills` });
    if (d === top || dirname(d) === d) break;
  }
  const xdg = env['XDG_CONFIG_HOME'];
  const config = join(xdg?.startsWith('/') ? xdg : join(home, '.config'), 'agent');
  out.push({ dir: join(config, 'skills'), scope: 'user', source: 'user ~/.config/agent/skills' });
  out.push({ dir: join(home, '.claude', 'skills'), scope: 'user', source: 'user ~/.claude/skills' });
  out.push({ dir: join(home, '.agents', 'skills'), scope: 'user', source: 'user ~/.agents/skills' });
  // the working directory may be the home directory: its skills are the person's, found once
  const seen = new Set<string>();
  return out.filter((d) => !seen.has(d.dir) && seen.add(d.dir));
}

/**
 * The skill folders between the working directory (exclusive) and a file's folder: Claude Code
 * loads `.claude/skills` of a subdirectory when the model works on files under it.
 */
export function nestedSkillDirs(cwd: string, file: string): SkillDir[] {
  const root = resolve(cwd);
  const rel = relative(root, dirname(resolve(root, file)));
  if (rel === '' || rel.startsWith('..') || resolve(rel) === rel) return [];
  const out: SkillDir[] = [];
  const parts = rel.split(sep);
  for (let i = parts.length; i >= 1; i--) {
    const d = join(root, ...parts.slice(0, i));
    for (const p of PROJECT_DIRS) out.push({ dir: join(d, p, 'skills'), scope: 'project', source: `project ${parts.slice(0, i).join(sep)}${sep}${p}/skills` });
  }
  return out;
}

/** yaml's parse, whether the bundle hands the package over as ESM or as CommonJS (under default). */
async function loadYaml(): Promise<ParseYaml> {
  const mod: { parse?: ParseYaml; default?: { parse?: ParseYaml } } = await import('yaml');
  const parse = mod.parse ?? mod.default?.parse;
  if (!parse) throw new Error('the yaml package has no parse function');
  return parse;
}

/** Reads every SKILL.md of the folders, first of a name wins; `taken` are names already loaded (nothing here throws). */
export async function loadSkills(dirs: readonly SkillDir[], taken: ReadonlyMap<string, Skill> = new Map()): Promise<SkillCatalogData> {
  const out: SkillCatalogData = { skills: [], warnings: [] };
  const byName = new Map(taken);
  let parseYaml: ParseYaml | undefined;
  for (const d of dirs) {
    let names: string[];
    try {
      names = readdirSync(d.dir).sort();
    } catch {
      continue;
    }
    for (const n of names) {
      if (n.startsWith('.')) continue;
      const file = join(d.dir, n, 'SKILL.md');
      let content: string;
      try {
        content = readFileSync(file, 'utf8');
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        // a folder without SKILL.md (a shared scripts folder, a file) is not a skill
        if (code !== 'ENOENT' && code !== 'ENOTDIR') out.warnings.push(`${file}: could not be read (${(e as Error).message}); the skill is skipped`);
        continue;
      }
      parseYaml ??= await loadYaml();
      const r = parseSkillFile(content, file, d, parseYaml);
      if ('error' in r) {
        out.warnings.push(r.error);
        continue;
      }
      out.warnings.push(...r.warnings);
      const first = byName.get(r.skill.name);
      if (first) {
        out.warnings.push(
          `${file}: the skill "${r.skill.name}" is also in ${first.file}, which wins (${first.scope === r.skill.scope ? 'nearer' : 'project over user'})`,
        );
        continue;
      }
      byName.set(r.skill.name, r.skill);
      out.skills.push(r.skill);
    }
  }
  return out;
}
