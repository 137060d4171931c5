// One SKILL.md (agentskills.io): YAML frontmatter with a name and a description, then the
// body the model reads when the skill is used. The standard's fields (name, description,
// license, compatibility, metadata, allowed-tools) and Claude Code's extras that mean something
// here (argument-hint, disable-model-invocation, user-invocable, model, effort, context: fork,
// agent). A broken file is a reason naming the file and the field; nothing here throws.
import { basename, dirname } from 'node:path';
import { EFFORTS } from '../config/thinking.js';
import { yamlProblem } from '../config/yamlProblem.js';

/** Where a skill was found: the project's (a cloned repository's: its !`command`s need trust) or the person's. */
export type SkillScope = 'project' | 'user';

export interface Skill {
  /** Lower-case letters, digits and hyphens (the standard's rule), at most 64 characters. */
  name: string;
  description: string;
  /** The text after the frontmatter, as written. */
  body: string;
  /** The SKILL.md file, absolute. */
  file: string;
  /** Its folder: scripts and references beside it are read from here. */
  dir: string;
  scope: SkillScope;
  /** The folder it was found in, for /skills ("project .claude/skills", "user ~/.agents/skills"). */
  source: string;
  license?: string;
  compatibility?: string;
  metadata?: Readonly<Record<string, string>>;
  /** allowed-tools as written: a list, or names separated by commas or blanks. */
  allowedTools?: readonly string[];
  argumentHint?: string;
  /** Kept out of the model's listing and refused to the Skill tool: only the person runs it (/name). */
  disableModelInvocation: boolean;
  /** false: not a slash command, only the model loads it. */
  userInvocable: boolean;
  model?: string;
  effort?: string;
  /** `context: fork`: it runs as a sub-agent whose task is the body (`agent` names which; default the general one). */
  fork: boolean;
  agent?: string;
}

export type ParseYaml = (text: string) => unknown;

const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const FRONT = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/;

/** Splits allowed-tools text: at top-level commas when there are any (Claude Code), else at blanks (the standard). */
export function splitToolText(text: string): string[] {
  const out: string[] = [];
  const sepIsComma = /,(?![^(]*\))/.test(text);
  let depth = 0;
  let cur = '';
  for (const c of text) {
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (sepIsComma ? c === ',' : /\s/.test(c))) {
      if (cur.trim()) out.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

const bool = (f: Record<string, unknown>, key: string, dflt: boolean): boolean | string => {
  const v = f[key];
  if (v === undefined || v === null) return dflt;
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  return `field "${key}" must be true or false (got ${JSON.stringify(v)})`;
};

const text = (f: Record<string, unknown>, key: string): string | undefined | { error: string } => {
  const v = f[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string' || typeof v === 'number') return String(v).trim() || undefined;
  return { error: `field "${key}" must be text` };
};

/** One SKILL.md's text → the skill, or the reason it is skipped (naming the file). */
export function parseSkillFile(
  content: string,
  file: string,
  where: { scope: SkillScope; source: string },
  parseYaml: ParseYaml,
): { skill: Skill; warnings: string[] } | { error: string } {
  const skip = (why: string): { error: string } => ({ error: `${file}: ${why}; the skill is skipped` });
  const m = FRONT.exec(content);
  if (!m) return skip('no frontmatter (the file must start with a "---" line, then name and description, then "---")');
  let front: unknown;
  try {
    front = plainFrontmatter(m[1] ?? '') ?? parseYaml(m[1] ?? '');
  } catch (e) {
    return skip(`the frontmatter is not valid YAML: ${yamlProblem(e)}`);
  }
  if (typeof front !== 'object' || front === null || Array.isArray(front)) return skip('the frontmatter must be a set of "key: value" lines');
  const f = front as Record<string, unknown>;
  const dir = dirname(file);
  const warnings: string[] = [];
  const name = f['name'] ?? basename(dir);
  if (typeof name !== 'string' || !NAME.test(name) || name.length > 64)
    return skip(`field "name" must be lower-case letters, digits and single hyphens, at most 64 characters (got ${JSON.stringify(name)})`);
  if (name !== basename(dir))
    warnings.push(`${file}: field "name" is "${name}" but the folder is "${basename(dir)}" (the standard wants them equal); loaded as /${name}`);
  const description = f['description'];
  if (typeof description !== 'string' || description.trim() === '') return skip('field "description" is missing (it tells the model when to use the skill)');
  const skill: Skill = {
    name,
    description: description.trim().replace(/\s+/g, ' '),
    body: m[2] ?? '',
    file,
    dir,
    scope: where.scope,
    source: where.source,
    disableModelInvocation: false,
    userInvocable: true,
    fork: false,
  };
  for (const key of ['license', 'compatibility', 'argument-hint', 'model', 'agent'] as const) {
    const v = text(f, key);
    if (typeof v === 'object') return skip(v.error);
    if (v === undefined) continue;
    if (key === 'argument-hint') skill.argumentHint = v;
    else if (key === 'license' || key === 'compatibility' || key === 'model' || key === 'agent') skill[key] = v;
  }
  for (const [key, field, dflt] of [
    ['disable-model-invocation', 'disableModelInvocation', false],
    ['user-invocable', 'userInvocable', true],
  ] as const) {
    const v = bool(f, key, dflt);
    if (typeof v === 'string') return skip(v);
    skill[field] = v;
  }
  const meta = f['metadata'];
  if (meta !== undefined && meta !== null) {
    if (typeof meta !== 'object' || Array.isArray(meta)) return skip('field "metadata" must be "key: value" lines');
    skill.metadata = Object.fromEntries(Object.entries(meta as Record<string, unknown>).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  }
  const tools = f['allowed-tools'];
  if (tools !== undefined && tools !== null) {
    if (typeof tools === 'string') skill.allowedTools = splitToolText(tools);
    else if (Array.isArray(tools) && tools.every((t) => typeof t === 'string')) skill.allowedTools = tools.map((t) => t.trim()).filter(Boolean);
    else return skip('field "allowed-tools" must be a list of tool names, or names separated by commas or blanks');
  }
  const effort = text(f, 'effort');
  if (typeof effort === 'object') return skip(effort.error);
  if (effort !== undefined) {
    if ((EFFORTS as readonly string[]).includes(effort)) skill.effort = effort;
    else warnings.push(`${file}: field "effort" must be one of ${EFFORTS.join(', ')}; ignored`);
  }
  const context = text(f, 'context');
  if (typeof context === 'object') return skip(context.error);
  if (context !== undefined && context !== 'fork')
    return skip(`field "context" can only be "fork" (run the skill as a sub-agent); got ${JSON.stringify(context)}`);
  skill.fork = context === 'fork';
  if (skill.fork && skill.body.trim() === '') return skip('"context: fork" needs a body: it is the sub-agent\'s task');
  return { skill, warnings };
}

const PLAIN_KEY = /^([A-Za-z][\w-]*):(?:[ \t]+(.*?))?[ \t]*$/;
const ITEM = /^[ \t]+-[ \t]+(.*?)[ \t]*$/;
const NESTED = /^[ \t]+([A-Za-z][\w-]*):[ \t]+(.*?)[ \t]*$/;

/** One plain YAML scalar as YAML reads it, or undefined when it is not one this reader is sure of. */
function scalar(v: string): unknown {
  const dq = /^"([^"\\]*)"$/.exec(v);
  if (dq) return dq[1];
  const sq = /^'([^']*)'$/.exec(v);
  if (sq) return sq[1];
  if (/^[-?:,[\]{}#&*!|>'"%@`]|: | #|:$/.test(v)) return undefined;
  if (v === 'true' || v === 'false') return v === 'true';
  if (v === 'null' || v === '~') return null;
  if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  if (/^[-+.]?(\d|\.(inf|nan))|^0[xo]|^\.(inf|nan)$/i.test(v)) return undefined;
  return v;
}

/**
 * The common frontmatter (`key: value` lines, a one-level list or map under a key) read without
 * the YAML library, which costs ~0.2 ms a file (200 skills: the whole start-up budget); anything
 * else (block scalars, flow collections, anchors, a value this reader is unsure of) goes to YAML.
 */
export function plainFrontmatter(text: string): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  let open: { key: string; list?: unknown[]; map?: Record<string, unknown> } | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*(#.*)?$/.test(line)) continue;
    const item = open && !open.map ? ITEM.exec(line) : null;
    if (item && open) {
      const v = scalar(item[1]!);
      if (v === undefined || v === null) return undefined;
      (open.list ??= []).push(v);
      out[open.key] = open.list;
      continue;
    }
    const nested = open && !open.list ? NESTED.exec(line) : null;
    if (nested && open) {
      const v = scalar(nested[2]!);
      if (v === undefined) return undefined;
      (open.map ??= {})[nested[1]!] = v;
      out[open.key] = open.map;
      continue;
    }
    const top = PLAIN_KEY.exec(line);
    if (!top || top[1]! in out) return undefined;
    if (top[2] === undefined || top[2] === '') {
      out[top[1]!] = null;
      open = { key: top[1]! };
      continue;
    }
    open = undefined;
    const v = scalar(top[2]);
    if (v === undefined) return undefined;
    out[top[1]!] = v;
  }
  return out;
}
