// Sub-agents: the model hands a task to a child that starts with a fresh context and returns
// only its report. This room owns what an agent is (a name, a description the model reads to
// decide when to delegate, a system prompt, a tool list, a model, limits), where agents come
// from (the built-in "explore", agent files: agentFiles.ts), the Task tool the model calls
// (taskTool.ts), what a running child looks like as data (childState.ts) and when a report is
// cut (report.ts). It never runs a loop, opens a session or touches the store itself: the
// session layer implements SubagentHost (session/children.ts) and opens each child as an
// ordinary session linked to its parent, persisted through the same log as any other.
import type { AgentRow } from '../protocol/views.js';
import { TOOL } from '../tools/toolNames.js';

import { promptText } from '../promptText.js';
import EXPLORE_PROMPT from './explore.md';

/** Tools a child gets when its agent names none: it can look, not change. */
export const READ_ONLY_TOOLS: readonly string[] = [TOOL.FileRead, TOOL.Grep, TOOL.Glob, TOOL.Recall, TOOL.Bash, TOOL.Skill];

export type AgentSource = 'builtin' | 'project' | 'user' | 'claude-project' | 'claude-user';

export interface AgentDefinition {
  name: string;
  /** When to use it (the model reads this in the Task tool's description). */
  description: string;
  /** The child's system prompt (an agent file's body). */
  prompt: string;
  /** This program's tool names; undefined = READ_ONLY_TOOLS. Task is dropped unless nesting allows it. */
  tools?: readonly string[];
  /** A model name or alias (sonnet, opus, haiku); undefined or "inherit" = the parent's. */
  model?: string;
  /** How much the agent's model thinks (low … max): Anthropic's effort, OpenAI's reasoning effort. */
  effort?: string;
  /** Model calls per run of this agent (else agents.maxSteps). */
  maxSteps?: number;
  source: AgentSource;
  /** The file it was read from (absent for built-ins). */
  file?: string;
}

export const EXPLORE_AGENT: AgentDefinition = {
  name: 'explore',
  description:
    'General-purpose explorer: searches and reads code, runs read-only commands, and reports what it found. Use it for open-ended investigation that would fill your context with files and outputs.',
  prompt: promptText(EXPLORE_PROMPT),
  source: 'builtin',
};

/** The agents in force, by name: the built-in first, then files (a later source of the same name wins: project over user). */
export class AgentCatalog {
  private readonly byName = new Map<string, AgentDefinition>();

  constructor(
    defs: readonly AgentDefinition[],
    readonly warnings: readonly string[] = [],
  ) {
    this.byName.set(EXPLORE_AGENT.name, EXPLORE_AGENT);
    for (const d of defs) this.byName.set(d.name, d);
  }

  get(name: string | undefined): AgentDefinition | undefined {
    return this.byName.get(name === undefined || name === '' ? EXPLORE_AGENT.name : name);
  }

  list(): AgentDefinition[] {
    return [...this.byName.values()];
  }

  /** What /agents shows of each: where it comes from, its model and its tools (READ_ONLY_TOOLS when it names none). */
  rows(): AgentRow[] {
    return this.list().map((a) => ({
      name: a.name,
      description: a.description,
      source: a.source,
      ...(a.file ? { file: a.file } : {}),
      ...(a.model ? { model: a.model } : {}),
      tools: [...(a.tools ?? READ_ONLY_TOOLS)],
    }));
  }
}

/**
 * The tools a child of `agent` gets, in the parent's registry order (so the tool list — part of
 * the cached prefix — is the same bytes for every child of one agent). Task only while
 * `depth` (the child's) is below `maxDepth`.
 */
export function childToolNames(agent: AgentDefinition, available: readonly string[], depth: number, maxDepth: number): string[] {
  const wanted = new Set(agent.tools ?? READ_ONLY_TOOLS);
  if (depth < maxDepth) wanted.add(TOOL.Task);
  else wanted.delete(TOOL.Task);
  return available.filter((n) => wanted.has(n));
}
