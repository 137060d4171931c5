// Approval types shared with the UI, and the permission policy.
import type { PermissionMode, PermissionsConfig } from '../config/schema.js';
import type { FileDiff } from './fileDiff.js';
import { traitsOf, type ToolKind, type ToolTraits } from './kinds.js';
import { isInside } from './paths.js';
import { isReadOnlyCommand } from './readOnlyCommand.js';
import { joinWords, splitCommand } from './shellWords.js';
import { TOOL } from './toolNames.js';

export interface ApprovalRequest {
  toolName: string;
  toolUseId: string;
  input: unknown;
  /** The key argument shown to the person (for Bash: the full command). */
  summary: string;
  /** For Bash: the prefix "allow this command prefix for the session" would remember (only for a simple command). */
  suggestedPrefix?: string;
  /** For Bash: the command is not a simple one (a loop, a pipeline, a substitution): only "allow once" is offered. */
  onceOnly?: boolean;
  /** For Edit and Write: the change, shown as a diff. */
  diff?: FileDiff;
  /** For Edit and Write: the file is outside the working directory (it always asks). */
  outsideCwd?: boolean;
  /** Asked for a sub-agent: which one and its task ("explore: Find the parser"). */
  agent?: string;
  /**
   * Not a tool call: a project's own code asks to run (summary: what would run) — its hooks (`name`:
   * the file), or one of its MCP servers (`name`: the server). "session" remembers the answer for
   * the project, "once" runs it in this session only (a skill's `!command`s and allowed-tools likewise), a denial keeps it from running (no note).
   */
  projectCode?: { what: 'hooks' | 'mcp' | 'skill'; name: string; file: string; changed: boolean };
  /** For Bash with a sandbox: why this command would run outside it (escape asked, the sandbox cannot start), shown in the prompt. */
  unsandboxed?: string;
  /** For a read outside the project: the directory "for this session" covers (shown in the choice). */
  sessionScope?: string;
  /** ExitPlanMode: the plan (Markdown) to approve; allow_once approves (ask mode), accept_edits approves with edits accepted, deny with a note keeps planning. */
  plan?: string;
}

export type ApprovalDecision =
  /** `plan`: ExitPlanMode's plan as the person edited it (in $EDITOR) before answering. */
  | { kind: 'allow_once'; plan?: string }
  | { kind: 'allow_prefix'; prefix: string }
  | { kind: 'allow_tool' }
  /** Apply, and let edits run without asking for the rest of the session (mode acceptEdits). */
  | { kind: 'accept_edits'; plan?: string }
  /** `stop`: deny and end the turn (the model does not carry on). */
  | { kind: 'deny'; note?: string; stop?: boolean; plan?: string };

/** Asks the person; the TUI renders it. Print mode has none: what needs approval is refused. */
export type Approver = (req: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;

// ---- the policy ------------------------------------------------------------------------

export type PermissionDecision = 'allow' | 'ask' | 'deny';

export interface PermissionRule {
  source: 'config' | 'session';
  /** "Bash(git status)" for a command prefix, or a tool name for a whole tool. */
  rule: string;
}

/** What the session saves so a resumed session keeps the choices made in it. */
export interface PermissionSessionState {
  tools: string[];
  bashPrefixes: string[];
}

const BASH = TOOL.Bash;

/** Words that open or continue a shell compound command: a prefix of them means nothing. */
const SHELL_KEYWORDS = new Set([
  'for',
  'while',
  'until',
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'case',
  'esac',
  'select',
  'function',
  '{',
  '}',
  '(',
  ')',
  '[[',
  ']]',
  '!',
  'coproc',
]);

/** The words of a simple command (one command, no keywords, no assignments, nothing the splitter refuses), else undefined. */
export function simpleCommandWords(command: string): string[] | undefined {
  const split = splitCommand(command);
  if (!split.ok || split.parts.length !== 1) return undefined;
  const words = split.parts[0]!;
  const first = words[0];
  if (first === undefined || SHELL_KEYWORDS.has(first) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(first)) return undefined;
  return words;
}

/** Commands whose second word is a subcommand worth naming in a prefix (git status, cargo test). */
const SUBCOMMAND_TOOLS = new Set([
  'git',
  'npm',
  'pnpm',
  'yarn',
  'bun',
  'npx',
  'cargo',
  'go',
  'docker',
  'podman',
  'kubectl',
  'helm',
  'pip',
  'pip3',
  'poetry',
  'uv',
  'dotnet',
  'mvn',
  'gradle',
  './gradlew',
  'brew',
  'apt',
  'apt-get',
  'gh',
  'terraform',
  'rustup',
  'composer',
  'bundle',
  'rake',
  'mix',
  'swift',
  'make',
  'just',
  'systemctl',
  'conda',
  'tsc',
  'vitest',
  'jest',
  'pytest',
]);
/** Package managers whose `run X` names the script too (npm run build). */
const RUN_TOOLS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
/** Commands that run whatever their arguments say: a prefix of their first word would allow anything. */
const WRAPPERS = new Set([
  'sudo',
  'doas',
  'env',
  'bash',
  'sh',
  'zsh',
  'dash',
  'fish',
  'eval',
  'exec',
  'command',
  'builtin',
  'xargs',
  'nohup',
  'time',
  'timeout',
  'nice',
  'watch',
  'ssh',
  'python',
  'python3',
  'node',
  'perl',
  'ruby',
  'php',
  'deno',
  'tsx',
  'find',
  'awk',
  'sed',
  'rm',
]);

/** Words of a configured or remembered prefix ("git status", "npm run test:*"); undefined if it is not a plain command. */
export function prefixWords(prefix: string): string[] | undefined {
  const bare = prefix.trim().replace(/(:\*|\s\*)$/, '');
  const split = splitCommand(bare);
  if (!split.ok || split.parts.length !== 1) return undefined;
  return split.parts[0];
}

const startsWith = (words: string[], prefix: string[]): boolean => prefix.length > 0 && prefix.length <= words.length && prefix.every((w, i) => words[i] === w);

/**
 * Whether the prefixes allow a command. A compound command (a; b, a && b, a | b, …) is
 * allowed only when every simple command in it is; substitution, subshells and
 * redirections to files are never allowed by prefix.
 */
export function bashAllowedByPrefixes(command: string, prefixes: string[][]): boolean {
  const split = splitCommand(command);
  if (!split.ok || split.parts.length === 0) return false;
  return split.parts.every((words) => prefixes.some((p) => startsWith(words, p)));
}

/**
 * Decides whether a tool call runs, asks the person, or is refused; remembers the
 * person's "always" answers for the session. Read-only tools never ask.
 */
export class PermissionPolicy {
  private readonly sessionTools = new Set<string>();
  private readonly sessionPrefixes: string[] = [];
  private currentMode: PermissionMode;

  constructor(
    private readonly config: PermissionsConfig,
    saved?: unknown,
  ) {
    const state = readState(saved);
    for (const t of state.tools) this.sessionTools.add(t);
    for (const p of state.bashPrefixes) if (prefixWords(p)) this.sessionPrefixes.push(p);
    this.currentMode = config.mode;
  }

  get mode(): PermissionMode {
    return this.currentMode;
  }

  /** Shift+Tab in the TUI, or "accept edits for the session" in the approval prompt. */
  setMode(mode: PermissionMode): void {
    this.currentMode = mode;
  }

  /** The modes Shift+Tab cycles through: allow only when the session was started in it. */
  cycleModes(): PermissionMode[] {
    return this.config.mode === 'allow' ? ['ask', 'acceptEdits', 'plan', 'allow', 'deny'] : ['ask', 'acceptEdits', 'plan', 'deny'];
  }

  /**
   * `file`: for a tool that edits files, the absolute path and the working directory. Edits
   * run without asking in acceptEdits and allow; a path outside the working directory asks in
   * every mode but allow.
   */
  decide(tool: ScopedTool, input: unknown, file?: { abs: string; cwd: string }): PermissionDecision {
    const mode = this.currentMode;
    if (mode === 'plan') return planAllows(tool, input) ? 'allow' : 'deny';
    const { readOnly, editsFiles } = traitsOf(tool);
    if (readOnly || mode === 'allow') return 'allow';
    if (editsFiles) {
      if (file && !isInside(file.cwd, file.abs)) return mode === 'deny' ? 'deny' : 'ask';
      if (mode === 'acceptEdits' || toolAllowedBy(this.config.allowTools, tool.name) || this.sessionTools.has(tool.name)) return 'allow';
      return mode === 'deny' ? 'deny' : 'ask';
    }
    if (toolAllowedBy(this.config.allowTools, tool.name) || this.sessionTools.has(tool.name)) return 'allow';
    const scope = tool.permissionScope?.(input);
    if (scope !== undefined && scopeAllowedBy([...this.config.allowTools, ...this.sessionTools], tool.name, scope)) return 'allow';
    if (tool.name === BASH) {
      const command = commandOf(input);
      if (command !== undefined && bashAllowedByPrefixes(command, this.prefixes())) return 'allow';
    }
    return mode === 'deny' ? 'deny' : 'ask';
  }

  /** Records an answer: "allow this prefix" / "allow this tool" last for the session. */
  remember(tool: { name: string } | string, decision: ApprovalDecision, scope?: string): void {
    const name = typeof tool === 'string' ? tool : tool.name;
    // a scoped tool (WebFetch) is allowed for the scope asked about (its domain), never whole
    if (decision.kind === 'allow_tool') this.sessionTools.add(scope !== undefined ? `${name}(${scope})` : name);
    else if (decision.kind === 'accept_edits' && (this.currentMode === 'ask' || this.currentMode === 'deny')) this.currentMode = 'acceptEdits';
    else if (decision.kind === 'allow_prefix' && name === BASH && prefixWords(decision.prefix) && !this.sessionPrefixes.includes(decision.prefix.trim())) {
      this.sessionPrefixes.push(decision.prefix.trim());
    }
  }

  /**
   * The prefix "allow commands like this" would remember: two words for tools with
   * subcommands (git status, cargo test; three for npm run build), the whole command for
   * interpreters and wrappers (python x.py, sudo …), else the first word.
   */
  suggestPrefix(command: string): string | undefined {
    const words = simpleCommandWords(command);
    const first = words?.[0];
    if (words === undefined || first === undefined) return undefined;
    let n = 1;
    if (WRAPPERS.has(first)) n = words.length;
    else if (SUBCOMMAND_TOOLS.has(first) && words[1] !== undefined && !words[1].startsWith('-')) {
      n = RUN_TOOLS.has(first) && (words[1] === 'run' || words[1] === 'run-script') && words[2] !== undefined ? 3 : 2;
    }
    return joinWords(words.slice(0, n));
  }

  rules(): PermissionRule[] {
    const rows: PermissionRule[] = [];
    for (const t of this.config.allowTools) rows.push({ source: 'config', rule: t });
    for (const p of this.config.allowBash)
      rows.push({ source: 'config', rule: `${BASH}(${p})${prefixWords(p) ? '' : ' — not a plain command, never matches'}` });
    for (const t of this.sessionTools) rows.push({ source: 'session', rule: t });
    for (const p of this.sessionPrefixes) rows.push({ source: 'session', rule: `${BASH}(${p})` });
    return rows;
  }

  sessionState(): PermissionSessionState {
    return { tools: [...this.sessionTools], bashPrefixes: [...this.sessionPrefixes] };
  }

  private prefixes(): string[][] {
    const out: string[][] = [];
    for (const p of [...this.config.allowBash, ...this.sessionPrefixes]) {
      const w = prefixWords(p);
      if (w) out.push(w);
    }
    return out;
  }
}

/** A tool as the policy sees it: its kind, its own traits, and the scope of a call when it is allowed per scope. */
type ScopedTool = { name: string; kind: ToolKind; traits?: Partial<ToolTraits>; permissionScope?: ((input: unknown) => string | undefined) | undefined };

/**
 * Whether rules allow a scoped call: `WebFetch(domain:docs.rs)` allows docs.rs; `WebFetch(domain:*.rs)`
 * any host ending in .rs.
 */
export function scopeAllowedBy(rules: Iterable<string>, name: string, scope: string): boolean {
  for (const rule of rules) {
    if (!rule.startsWith(`${name}(`) || !rule.endsWith(')')) continue;
    const want = rule
      .slice(name.length + 1, -1)
      .trim()
      .toLowerCase();
    if (want === scope) return true;
    const star = want.indexOf('*');
    if (star !== -1 && scope.startsWith(want.slice(0, star)) && scope.endsWith(want.slice(star + 1))) return true;
  }
  return false;
}

/**
 * Plan mode: only what cannot change anything runs — a tool whose kind (or own traits) is not
 * mutating, and Bash for a command classified read-only. Nothing the person allowed for the
 * session or in .agentrc widens it: planning is reading.
 */
export function planAllows(tool: { name: string; kind: ToolKind; traits?: Partial<ToolTraits> }, input: unknown): boolean {
  if (!traitsOf(tool).mutating) return true;
  const command = tool.name === BASH ? commandOf(input) : undefined;
  return command !== undefined && isReadOnlyCommand(command);
}

/** What each mode means, for /permissions. */
export const MODE_MEANING: Readonly<Record<PermissionMode, string>> = {
  ask: 'Bash, Edit and Write ask first; reads inside the project run.',
  acceptEdits: 'edits inside the working directory run without asking; Bash still asks.',
  plan: 'plan mode: only what cannot change anything runs (FileRead, Grep, Glob, Recall, read-only MCP tools, sub-agents held to the same, read-only commands such as ls, cat, grep, git status/log/diff); Edit, Write and any other command are refused, whatever the rules below allow. The model presents its plan for approval (ExitPlanMode); Shift+Tab or /plan off leaves plan mode.',
  allow: 'everything runs without asking (an edit outside the working directory too).',
  deny: 'what would need approval is refused.',
};

/** What the model reads when plan mode refuses a call. */
export function planRefusal(toolName: string, summary: string): string {
  const what = toolName === BASH ? 'this command is not one that only reads' : `${toolName} can change things`;
  return (
    `Plan mode is on, and ${what}, so it was not run: ${summary}. While planning, only reading runs ` +
    `(FileRead, Grep, Glob, Recall, read-only commands such as ls, cat, grep, git status/log/diff). ` +
    'Do not retry it: finish the plan, then ask the user to approve it.'
  );
}

const commandOf = (input: unknown): string | undefined =>
  typeof input === 'object' && input !== null && 'command' in input && typeof input.command === 'string' ? input.command : undefined;

/**
 * Whether a configured list allows a tool: its name, a pattern with `*` (mcp__github__*), or an
 * MCP server's prefix alone (mcp__github), as Claude Code reads it.
 */
export function toolAllowedBy(list: readonly string[], name: string): boolean {
  return list.some((p) => {
    if (p === name) return true;
    if (p.startsWith('mcp__') && !p.includes('*') && p.split('__').length === 2) return name.startsWith(`${p}__`);
    if (!p.includes('*')) return false;
    const re = new RegExp(
      `^${p
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
    return re.test(name);
  });
}

function readState(saved: unknown): PermissionSessionState {
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : []);
  if (typeof saved !== 'object' || saved === null) return { tools: [], bashPrefixes: [] };
  const s = saved as Record<string, unknown>;
  return { tools: strings(s['tools']), bashPrefixes: strings(s['bashPrefixes']) };
}
