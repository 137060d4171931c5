// Hooks: shell commands the person configured (`hooks` in .agentrc) that run on the agent's
// events and can steer it: add context to a prompt, block a tool call or a prompt, keep the
// model going at a stop, add to the summary instructions, hear about approvals. This module
// owns which hooks run (home's always; a project's only once the person approved exactly
// those hooks for that project, or in print mode with --hooks-trust), running them (the
// event as JSON on stdin, Claude Code's field names; a timeout that kills the process
// group) and reading their answers (decision.ts). It never shows anything (the session's
// notices do) and never stores anything but the approval (through ProjectTrust). A hook
// that fails, hangs or cannot start is reported and the agent goes on as if it were absent.
import type { HookSource } from '../config/config.js';
import type { HookCommand, HookEventName } from '../config/schema.js';
import { fingerprintOf, type ProjectTrust, type TrustSubject } from '../trust/projectTrust.js';
import { verdictOf, type HookVerdict } from './decision.js';
import { matches } from './match.js';
import { runHookCommand } from './run.js';

export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;
/** A Stop hook can send the model back to work at most this many times per turn. */
export const MAX_STOP_CONTINUATIONS = 3;

/** What the hooks of one event decided together. */
export interface HookOutcome {
  /** Some hook blocked: the reasons, joined. */
  block?: string;
  /** A PreToolUse hook allowed the call outright (and none blocked it). */
  allow: boolean;
  /** Context for the model from every hook that gave some, in configuration order. */
  context: string[];
  /** Whether any hook ran. */
  ran: boolean;
}

export interface HooksDeps {
  sources: readonly HookSource[];
  sessionId: string;
  cwd: string;
  /** The environment hooks see: this process's minus the secret variables. */
  env: Record<string, string>;
  /** The tools' names, for matchers written with Claude Code's names. */
  toolNames: readonly string[];
  trust: ProjectTrust;
  /** Print mode's --hooks-trust: a project's hooks run without an approval (none is recorded). */
  trustProject: boolean;
  /** Asks the person whether a project file's hooks may run (the TUI); absent in print mode. */
  askApproval?: (request: HooksApprovalRequest, signal: AbortSignal) => Promise<HooksAnswer>;
  /** Failures, blocks and hooks' messages for the person. */
  report: (level: 'info' | 'warning', text: string) => void;
}

/** What the person is asked about a project file's hooks. */
export interface HooksApprovalRequest {
  file: string;
  /** Approved before, for other hooks than these. */
  changed: boolean;
  /** One line per hook: "PreToolUse (Bash): ./guard.sh". */
  hooks: string[];
}

/** Run them and remember that for the project, run them in this session only, or do not run them. */
export type HooksAnswer = 'remember' | 'session' | 'no';

interface Armed {
  source: HookSource;
  hook: HookCommand;
  label: string;
}

export class Hooks {
  /** Whether each project file's hooks run in this process, decided once per file. */
  private readonly decisions = new Map<string, Promise<boolean>>();
  /** Told when the hooks of an event start and end (the session's status row: which hook runs, for how long). */
  onRunning: (label: string, done: boolean) => void = () => {};

  constructor(private readonly deps: HooksDeps) {}

  /** Whether any hook is configured for the event (whatever its approval). */
  has(event: HookEventName): boolean {
    return this.deps.sources.some((s) => (s.hooks[event]?.length ?? 0) > 0);
  }

  private subject(source: HookSource): TrustSubject {
    return { kind: 'hooks', projectDir: source.dir, name: source.trustName ?? 'hooks', fingerprint: fingerprintOf(source.hooks) };
  }

  /** Decides once per process and file whether a project file's hooks run: approved before for exactly these, --hooks-trust, or the person says yes now. */
  private projectAllowed(source: HookSource, signal: AbortSignal): Promise<boolean> {
    let decided = this.decisions.get(source.file);
    if (!decided) {
      decided = this.decide(source, signal);
      this.decisions.set(source.file, decided);
    }
    return decided;
  }

  private async decide(source: HookSource, signal: AbortSignal): Promise<boolean> {
    const subject = this.subject(source);
    if (this.deps.trustProject) return true;
    try {
      if (this.deps.trust.isApproved(subject)) return true;
    } catch (e) {
      this.deps.report('warning', `${(e as Error).message}; the project's hooks do not run`);
      return false;
    }
    const changed = this.deps.trust.changedSinceApproval(subject);
    if (!this.deps.askApproval) {
      this.deps.report(
        'warning',
        `${source.file} has hooks${changed ? ' that changed since you approved them' : ''}; they do not run in print mode without --hooks-trust`,
      );
      return false;
    }
    const hooks = Object.entries(source.hooks).flatMap(([event, list]) =>
      (list ?? []).map((h) => `${event}${h.matcher ? ` (${h.matcher})` : ''}: ${h.command}`),
    );
    let answer: HooksAnswer = 'no';
    try {
      answer = await this.deps.askApproval({ file: source.file, changed, hooks }, signal);
    } catch {
      answer = 'no';
    }
    const ok = answer !== 'no';
    if (answer === 'remember') {
      try {
        this.deps.trust.approve(subject);
      } catch (e) {
        this.deps.report('warning', `the approval could not be saved, so you will be asked again next time: ${(e as Error).message}`);
      }
    } else if (answer === 'no') this.deps.report('info', `The hooks in ${source.file} do not run in this session.`);
    return ok;
  }

  /** Settles now whether the project's hooks run (the TUI asks at the first prompt, not in the middle of another question). */
  async prepare(signal: AbortSignal): Promise<void> {
    for (const source of this.deps.sources) if (source.scope === 'project') await this.projectAllowed(source, signal);
  }

  private async armed(event: HookEventName, subject: string, signal: AbortSignal): Promise<Armed[]> {
    const out: Armed[] = [];
    for (const source of this.deps.sources) {
      const hooks = (source.hooks[event] ?? []).filter((h) => matches(h.matcher, subject, this.deps.toolNames));
      if (hooks.length === 0) continue;
      if (source.scope === 'project' && !(await this.projectAllowed(source, signal))) continue;
      for (const hook of hooks) out.push({ source, hook, label: `${event} hook \`${hook.command}\`` });
    }
    return out;
  }

  /**
   * Runs the event's hooks that match `subject` (in parallel, as Claude Code does) with the
   * event's data, and combines their answers. Never throws.
   */
  async run(event: HookEventName, subject: string, data: Record<string, unknown>, signal: AbortSignal = new AbortController().signal): Promise<HookOutcome> {
    const outcome: HookOutcome = { allow: false, context: [], ran: false };
    if (!this.has(event)) return outcome;
    const armed = await this.armed(event, subject, signal);
    if (armed.length === 0) return outcome;
    outcome.ran = true;
    const input = JSON.stringify({ session_id: this.deps.sessionId, cwd: this.deps.cwd, hook_event_name: event, ...data });
    const label = `Running the ${event} hook${armed.length > 1 ? 's' : ''}`;
    this.onRunning(label, false);
    const verdicts: HookVerdict[] = await Promise.all(
      armed.map(async (a) => {
        const timeoutMs = a.hook.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
        const env = { ...this.deps.env, AGENT_PROJECT_DIR: this.deps.cwd, CLAUDE_PROJECT_DIR: this.deps.cwd, AGENT_HOOK_EVENT: event };
        const r = await runHookCommand(a.hook.command, input, { cwd: this.deps.cwd, env, timeoutMs, signal });
        return verdictOf(event, r, a.label, timeoutMs);
      }),
    ).finally(() => this.onRunning(label, true));
    const blocks: string[] = [];
    for (const v of verdicts) {
      if (v.failure) this.deps.report('warning', v.failure);
      if (v.message) this.deps.report('info', v.message);
      if (v.block) blocks.push(v.block);
      if (v.context) outcome.context.push(v.context);
      if (v.allow) outcome.allow = true;
    }
    if (blocks.length > 0) {
      outcome.block = blocks.join('\n');
      outcome.allow = false;
    }
    return outcome;
  }
}

/** The environment for hooks: `env` without the variables `hide` names (the API keys, as for Bash). */
export function hookEnv(env: NodeJS.ProcessEnv, hide: (name: string) => boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !hide(k)) out[k] = v;
  return out;
}
