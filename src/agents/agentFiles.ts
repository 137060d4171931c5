// Agent files: Markdown with YAML frontmatter (name, description, tools, model, effort,
// maxSteps; Claude Code's maxTurns too), the body the agent's system prompt. Read from
// ~/.claude/agents, ~/.config/agent/agents, .claude/agents and .agent/agents, in that order of
// increasing precedence (a project's file of the same name wins over a personal one). A bad
// file is skipped with a warning naming it and the field; nothing here throws.
import { homeDir, world } from '../runtime/world.js';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { EFFORTS } from '../config/thinking.js';
import { parseToolList, TOOL } from '../tools/toolNames.js';
import { AgentCatalog, type AgentDefinition, type AgentSource } from './agents.js';
import { yamlProblem } from '../config/yamlProblem.js';

export interface AgentDirs {
  cwd: string;
  /** Home directory (tests point it elsewhere). */
  home?: string;
  /** The config directory (default ~/.config/agent, or $XDG_CONFIG_HOME/agent). */
  configDir?: string;
}

const NAME = /^[a-z0-9][a-z0-9_-]*$/i;

type ParseYaml = (text: string) => unknown;

/** yaml's parse, whether the bundle hands the package over as ESM or as CommonJS (under default). */
async function loadYaml(): Promise<ParseYaml> {
  const mod: { parse?: ParseYaml; default?: { parse?: ParseYaml } } = await import('yaml');
  const parse = mod.parse ?? mod.default?.parse;
  if (!parse) throw new Error('the yaml package has no parse function');
  return parse;
}

/**
 * Every agent in force for a working directory: the built-in, then the files; warnings name each
 * bad file. The YAML parser is loaded only when there is an agent file (start-up pays nothing otherwise).
 */
/** The run's agents: an agent file may name the built-in tools, Task, and TodoWrite (a sub-agent keeps its own task list). */
export function loadRunAgents(cwd: string, builtins: readonly { name: string }[]): Promise<AgentCatalog> {
  return loadAgents({ cwd }, [...builtins.map((t) => t.name), TOOL.Task, TOOL.TodoWrite]);
}

export async function loadAgents(dirs: AgentDirs, knownTools: readonly string[]): Promise<AgentCatalog> {
  const home = dirs.home ?? homeDir();
  const configDir = dirs.configDir ?? join(world().env['XDG_CONFIG_HOME'] || join(home, '.config'), 'agent');
  const sources: Array<[string, AgentSource]> = [
    [join(home, '.claude', 'agents'), 'claude-user'],
    [join(configDir, 'agents'), 'user'],
    [join(dirs.cwd, '.claude', 'agents'), 'claude-project'],
    [join(dirs.cwd, '.agent', 'agents'), 'project'],
  ];
  const defs: AgentDefinition[] = [];
  const warnings: string[] = [];
  let parseYaml: ParseYaml | undefined;
  for (const [dir, source] of sources) {
    let names: string[];
    try {
      names = readdirSync(dir)
        .filter((n) => n.endsWith('.md'))
        .sort();
    } catch {
      continue;
    }
    for (const n of names) {
      const file = join(dir, n);
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (e) {
        warnings.push(`${file}: could not be read (${(e as Error).message}); the agent is skipped`);
        continue;
      }
      parseYaml ??= await loadYaml();
      const r = parseAgentFile(text, file, source, knownTools, parseYaml);
      warnings.push(...r.warnings);
      if (r.agent) defs.push(r.agent);
    }
  }
  return new AgentCatalog(defs, warnings);
}

/** One agent file: the agent, or warnings saying why it was skipped (and which fields were ignored). */
export function parseAgentFile(
  text: string,
  file: string,
  source: AgentSource,
  knownTools: readonly string[],
  parseYaml: ParseYaml,
): { agent?: AgentDefinition; warnings: string[] } {
  const warnings: string[] = [];
  const skip = (why: string): { warnings: string[] } => ({ warnings: [...warnings, `${file}: ${why}; the agent is skipped`] });
  const m = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/.exec(text);
  if (!m) return skip('no frontmatter (the file must start with a "---" line, then name and description, then "---")');
  let front: unknown;
  try {
    front = parseYaml(m[1] ?? '');
  } catch (e) {
    return skip(`the frontmatter is not valid YAML: ${yamlProblem(e)}`);
  }
  if (typeof front !== 'object' || front === null || Array.isArray(front)) return skip('the frontmatter must be a set of "key: value" lines');
  const f = front as Record<string, unknown>;
  const name = f['name'] ?? basename(file, '.md');
  if (typeof name !== 'string' || !NAME.test(name)) return skip(`field "name" must be a word of letters, digits, "-" or "_" (got ${JSON.stringify(name)})`);
  const description = f['description'];
  if (typeof description !== 'string' || description.trim() === '') return skip('field "description" is missing (it tells the model when to use the agent)');
  const prompt = (m[2] ?? '').trim();
  if (prompt === '') return skip("the body (the agent's system prompt, after the frontmatter) is empty");
  const agent: AgentDefinition = { name, description: description.trim(), prompt, source, file };

  const tools = f['tools'];
  if (tools !== undefined && tools !== null) {
    if (typeof tools !== 'string' && !(Array.isArray(tools) && tools.every((t) => typeof t === 'string'))) {
      return skip('field "tools" must be a comma-separated list or a list of tool names');
    }
    const parsed = parseToolList(tools, knownTools);
    if (parsed.unknown.length > 0)
      warnings.push(
        `${file}: field "tools": unknown tool${parsed.unknown.length === 1 ? '' : 's'} ${parsed.unknown.map((u) => `"${u}"`).join(', ')} ignored (known: ${knownTools.join(', ')})`,
      );
    agent.tools = [...new Set(parsed.entries.map((e) => e.tool))];
  }
  const model = f['model'];
  if (model !== undefined && model !== null) {
    if (typeof model !== 'string' || model.trim() === '') return skip('field "model" must be a model name, an alias (sonnet, opus, haiku) or "inherit"');
    if (model.trim() !== 'inherit') agent.model = model.trim();
  }
  const effort = f['effort'];
  if (effort !== undefined && effort !== null) {
    if (typeof effort !== 'string' || !(EFFORTS as readonly string[]).includes(effort.trim()))
      warnings.push(`${file}: field "effort" must be one of ${EFFORTS.join(', ')}; ignored`);
    else agent.effort = effort.trim();
  }
  const steps = f['maxSteps'] ?? f['maxTurns'];
  if (steps !== undefined && steps !== null) {
    if (typeof steps !== 'number' || !Number.isInteger(steps) || steps < 1)
      return skip(`field "${f['maxSteps'] !== undefined ? 'maxSteps' : 'maxTurns'}" must be a positive whole number (got ${JSON.stringify(steps)})`);
    agent.maxSteps = steps;
  }
  return { agent, warnings };
}
