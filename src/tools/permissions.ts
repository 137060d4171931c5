// Approval types shared with the UI, and the permission policy.
import type { PermissionMode, PermissionsConfig } from '../config/schema.js';
import { joinWords, splitCommand } from './shellWords.js';

export interface ApprovalRequest {
  toolName: string;
  toolUseId: string;
  input: unknown;
  /** The key argument shown to the person (for Bash: the full command). */
  summary: string;
  /** For Bash: the prefix "allow this command prefix for the session" would remember. */
  suggestedPrefix?: string;
}

export type ApprovalDecision =
  | { kind: 'allow_once' }
  | { kind: 'allow_prefix'; prefix: string }
  | { kind: 'allow_tool' }
  | { kind: 'deny'; note?: string };

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

const BASH = 'Bash';

/** Commands whose second word is a subcommand worth naming in a prefix (git status, cargo test). */
const SUBCOMMAND_TOOLS = new Set([
  'git', 'npm', 'pnpm', 'yarn', 'bun', 'npx', 'cargo', 'go', 'docker', 'podman', 'kubectl', 'helm', 'pip', 'pip3', 'poetry', 'uv',
  'dotnet', 'mvn', 'gradle', './gradlew', 'brew', 'apt', 'apt-get', 'gh', 'terraform', 'rustup', 'composer', 'bundle',
  'rake', 'mix', 'swift', 'make', 'just', 'systemctl', 'conda', 'tsc', 'vitest', 'jest', 'pytest',
]);
/** Package managers whose `run X` names the script too (npm run build). */
const RUN_TOOLS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
/** Commands that run whatever their arguments say: a prefix of their first word would allow anything. */
const WRAPPERS = new Set([
  'sudo', 'doas', 'env', 'bash', 'sh', 'zsh', 'dash', 'fish', 'eval', 'exec', 'command', 'builtin', 'xargs', 'nohup', 'time',
  'timeout', 'nice', 'watch', 'ssh', 'python', 'python3', 'node', 'perl', 'ruby', 'php', 'deno', 'tsx', 'find', 'awk', 'sed', 'rm',
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

  constructor(
    private readonly config: PermissionsConfig,
    saved?: unknown,
  ) {
    const state = readState(saved);
    for (const t of state.tools) this.sessionTools.add(t);
    for (const p of state.bashPrefixes) if (prefixWords(p)) this.sessionPrefixes.push(p);
  }

  get mode(): PermissionMode {
    return this.config.mode;
  }

  decide(tool: { name: string; readOnly: boolean }, input: unknown): PermissionDecision {
    if (tool.readOnly || this.config.mode === 'allow') return 'allow';
    if (this.config.allowTools.includes(tool.name) || this.sessionTools.has(tool.name)) return 'allow';
    if (tool.name === BASH) {
      const command = typeof input === 'object' && input !== null && 'command' in input && typeof input.command === 'string' ? input.command : undefined;
      if (command !== undefined && bashAllowedByPrefixes(command, this.prefixes())) return 'allow';
    }
    return this.config.mode === 'deny' ? 'deny' : 'ask';
  }

  /** Records an answer: "allow this prefix" / "allow this tool" last for the session. */
  remember(tool: { name: string } | string, decision: ApprovalDecision): void {
    const name = typeof tool === 'string' ? tool : tool.name;
    if (decision.kind === 'allow_tool') this.sessionTools.add(name);
    else if (decision.kind === 'allow_prefix' && name === BASH && prefixWords(decision.prefix) && !this.sessionPrefixes.includes(decision.prefix.trim())) {
      this.sessionPrefixes.push(decision.prefix.trim());
    }
  }

  /**
   * The prefix "allow commands like this" would remember: two words for tools with
   * subcommands (git status, cargo test; three for npm run build), the whole command for
   * interpreters and wrappers (python x.py, sudo …), else the first word.
   */
  suggestPrefix(command: string): string {
    const split = splitCommand(command);
    const words = split.ok ? (split.parts[0] ?? []) : leadingPlainWords(command);
    const first = words[0];
    if (first === undefined) return command.trim();
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
    for (const p of this.config.allowBash) rows.push({ source: 'config', rule: `${BASH}(${p})${prefixWords(p) ? '' : ' — not a plain command, never matches'}` });
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

function readState(saved: unknown): PermissionSessionState {
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : []);
  if (typeof saved !== 'object' || saved === null) return { tools: [], bashPrefixes: [] };
  const s = saved as Record<string, unknown>;
  return { tools: strings(s['tools']), bashPrefixes: strings(s['bashPrefixes']) };
}

/** For a command the splitter refuses: its first plain words, for a suggestion only. */
function leadingPlainWords(command: string): string[] {
  const words: string[] = [];
  for (const w of command.trim().split(/\s+/)) {
    if (!/^[\w@%+=:,./-]+$/.test(w)) break;
    words.push(w);
  }
  return words;
}
