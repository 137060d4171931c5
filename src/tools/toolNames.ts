// This program's tool names, in one place: code that means a particular tool names it through
// TOOL (the constants module, as Gemini CLI's tool-names.ts); what a tool may do comes from its
// kind (kinds.ts), never from comparing names.
//
// Tool names as people write them in files they bring from other agents: an agent file's
// `tools:`, a custom command's `allowed-tools:`, a hook's matcher. Claude Code's names (Read,
// Edit, MultiEdit, LS …) map to this program's (FileRead, Edit, Glob …), so a team's files work
// unchanged; this program's own names, and MCP tools (mcp__server__tool), pass as they are.
// An entry may carry a rule in parentheses, Claude Code's way of narrowing a tool:
// `Bash(git status:*)`, `Read(src/**)`. What the rule means is the caller's business.

export const TOOL = {
  FileRead: 'FileRead',
  Edit: 'Edit',
  Write: 'Write',
  Bash: 'Bash',
  Grep: 'Grep',
  Glob: 'Glob',
  Recall: 'Recall',
  Task: 'Task',
  McpSchemas: 'McpSchemas',
  McpCall: 'McpCall',
  Skill: 'Skill',
  TodoWrite: 'TodoWrite',
  ExitPlanMode: 'ExitPlanMode',
  WebFetch: 'WebFetch',
  KillShell: 'KillShell',
  Goal: 'Goal',
} as const;

/** Claude Code's tool name → this program's. */
export const CLAUDE_CODE_TOOL_NAMES: Readonly<Record<string, string>> = {
  Read: TOOL.FileRead,
  Edit: TOOL.Edit,
  MultiEdit: TOOL.Edit,
  Write: TOOL.Write,
  Bash: TOOL.Bash,
  Grep: TOOL.Grep,
  Glob: TOOL.Glob,
  LS: TOOL.Glob,
  Task: TOOL.Task,
  Agent: TOOL.Task,
  TodoWrite: TOOL.TodoWrite,
  ExitPlanMode: TOOL.ExitPlanMode,
  WebFetch: TOOL.WebFetch,
  KillShell: TOOL.KillShell,
  KillBash: TOOL.KillShell,
};

export interface ToolSpecEntry {
  /** This program's tool name (or an MCP tool name / pattern as written). */
  tool: string;
  /** The part in parentheses, e.g. `git status:*` of `Bash(git status:*)`. */
  rule?: string;
  /** The entry as written. */
  written: string;
}

export interface ParsedToolList {
  entries: ToolSpecEntry[];
  /** Entries that name no known tool, as written (the caller warns, naming its file and field). */
  unknown: string[];
}

const ENTRY = /^([A-Za-z_][\w.*-]*)\s*(?:\((.*)\))?$/s;

/** This program's name for `name` (its own or Claude Code's), or undefined when it is neither. */
export function canonicalToolName(name: string, known: readonly string[]): string | undefined {
  if (known.includes(name)) return name;
  const mapped = CLAUDE_CODE_TOOL_NAMES[name];
  if (mapped !== undefined && known.includes(mapped)) return mapped;
  const folded = known.find((k) => k.toLowerCase() === name.toLowerCase());
  return folded;
}

/**
 * Splits a tool list — a YAML list or Claude Code's comma-separated string, entries like
 * `Read`, `Bash(git add:*)`, `mcp__github__*` — into entries with this program's names.
 * Names starting with `mcp__` are kept as written (servers connect later); a name that is
 * neither known nor MCP goes to `unknown`. Duplicates (Edit and MultiEdit) are kept once.
 */
export function parseToolList(spec: string | readonly string[], known: readonly string[]): ParsedToolList {
  const parts = (typeof spec === 'string' ? splitTopLevel(spec) : spec.flatMap((s) => splitTopLevel(s))).map((s) => s.trim()).filter((s) => s.length > 0);
  const entries: ToolSpecEntry[] = [];
  const unknown: string[] = [];
  const seen = new Set<string>();
  for (const written of parts) {
    const m = ENTRY.exec(written);
    const name = m?.[1];
    if (m === null || name === undefined) {
      unknown.push(written);
      continue;
    }
    const tool = name.startsWith('mcp__') ? name : canonicalToolName(name, known);
    if (tool === undefined) {
      unknown.push(written);
      continue;
    }
    const rule = m[2]?.trim();
    const key = `${tool}(${rule ?? ''})`;
    if (seen.has(key)) continue;
    seen.add(key);
    entries.push(rule !== undefined && rule !== '' ? { tool, rule, written } : { tool, written });
  }
  return { entries, unknown };
}

/** Splits on commas outside parentheses: `Bash(a, b), Read` → [`Bash(a, b)`, `Read`]. */
function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out;
}
