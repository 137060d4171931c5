// The tool gate: whether a tool call runs (the read boundary, then the permission policy,
// then the person), and the words the model reads when it does not.
import { debug, debugFull } from '../log.js';
import type { Authorization, GateCall } from '../agent/loop.js';
import type { Config } from '../config/config.js';
import type { PermissionMode } from '../config/schema.js';
import { traitsOf } from '../tools/kinds.js';
import { isInside } from '../tools/paths.js';
import { PermissionPolicy, planAllows, planRefusal, type Approver } from '../tools/permissions.js';
import { ReadBoundary } from '../tools/readBoundary.js';
import type { ToolSpecEntry } from '../tools/toolNames.js';
import type { PlanAnswer } from '../capability/capability.js';
import type { SandboxPlan } from '../tools/types.js';
import { turnAllows } from './turnAllow.js';
import { TOOL } from '../tools/toolNames.js';

export class ToolGate {
  readonly policy: PermissionPolicy;
  /** Where FileRead, Grep and Glob may read without asking. */
  private readonly readBoundary: ReadBoundary;
  /** What runs without asking in the current turn only (a custom command's allowed-tools). */
  turnAllow: readonly ToolSpecEntry[] = [];

  constructor(
    private readonly config: () => Config,
    savedApprovals: unknown,
    private readonly approver: Approver | undefined,
    /** The mode changed (an answer "accept edits for the session", Shift+Tab). */
    private readonly modeChanged: (mode: PermissionMode) => void,
  ) {
    const c = config();
    this.policy = new PermissionPolicy(c.permissions, savedApprovals);
    this.readBoundary = new ReadBoundary({ cwd: c.cwd, readPaths: c.permissions.readPaths });
  }

  get mode(): PermissionMode {
    return this.policy.mode;
  }

  /** Sets the permission mode for the rest of the session ('next' cycles, as Shift+Tab does). */
  setMode(mode: PermissionMode | 'next'): PermissionMode {
    const modes = this.policy.cycleModes();
    const next = mode === 'next' ? modes[(modes.indexOf(this.policy.mode) + 1) % modes.length]! : mode;
    this.policy.setMode(next);
    this.modeChanged(next);
    return next;
  }

  /**
   * ExitPlanMode: the person approves the plan (ask mode, or with edits accepted) or sends it back
   * with a note. With nobody to ask (print mode) it is approved only when the session was started
   * in a mode that lets edits run (a `/plan …` inside `-p --permission-mode acceptEdits`); else unanswered.
   */
  async askPlan(plan: string, toolUseId: string, signal: AbortSignal): Promise<PlanAnswer> {
    if (!this.approver) {
      const started = this.config().permissions.mode;
      return started === 'acceptEdits' || started === 'allow' ? { kind: 'approve', mode: started, plan } : { kind: 'unanswered' };
    }
    const answer = await this.approver({ toolName: TOOL.ExitPlanMode, toolUseId, input: { plan }, summary: plan, plan }, signal);
    // the plan as the person edited it in $EDITOR, when they changed it
    const edited = 'plan' in answer && answer.plan !== undefined && answer.plan.trim() !== plan.trim() ? answer.plan : undefined;
    if (answer.kind === 'deny') return { kind: 'revise', ...(answer.note ? { note: answer.note } : {}), ...(edited ? { plan: edited } : {}) };
    return { kind: 'approve', mode: answer.kind === 'accept_edits' ? 'acceptEdits' : 'ask', plan: edited ?? plan, ...(edited ? { edited: true } : {}) };
  }

  async authorize(call: GateCall, signal: AbortSignal, preapproved = false): Promise<Authorization> {
    const started = Date.now();
    const auth = await this.decide(call, signal, preapproved);
    // --debug: each permission decision, the call's key argument only with --debug=full
    debug('permission', {
      tool: call.tool.name,
      id: call.toolUseId,
      mode: this.policy.mode,
      allowed: auth.ok,
      ...(!auth.ok && 'stop' in auth && auth.stop ? { stopped: true } : {}),
      ...(!auth.ok && debugFull() ? { reason: auth.message } : {}),
      waitedMs: Date.now() - started,
      ...(debugFull() ? { summary: call.summary } : {}),
    });
    return auth;
  }

  private async decide(call: GateCall, signal: AbortSignal, preapproved: boolean): Promise<Authorization> {
    const { tool, input, summary } = call;
    // plan mode holds whatever else allows a call (a hook, a command's allowed-tools, a rule)
    if (this.policy.mode === 'plan' && !planAllows(tool, input)) return { ok: false, message: planRefusal(tool.name, summary) };
    const sandbox = tool.sandboxPlan?.(input);
    if (sandbox) return this.decideSandboxed(call, sandbox, signal, preapproved);
    if (preapproved) return { ok: true };
    return this.byPolicy(call, signal);
  }

  /**
   * A call of a sandboxed tool (Bash with sandbox.enabled). Inside the sandbox it runs without
   * asking when auto-allow is on (ask and acceptEdits modes), and plan mode runs read-only
   * commands in a read-only sandbox. Out of it — the model's request to escape, which the person
   * approves each time in every mode that asks, never by a rule or a hook — or with a sandbox that
   * cannot start, nothing runs unsandboxed without the person's approval: plan mode asks too, and
   * print mode refuses (saying why).
   */
  private async decideSandboxed(call: GateCall, plan: SandboxPlan, signal: AbortSignal, preapproved: boolean): Promise<Authorization> {
    const mode = this.policy.mode;
    const { tool, summary } = call;
    if (plan.kind === 'unavailable') {
      const why = `the sandbox cannot start (${plan.why})`;
      if (plan.refuse)
        return {
          ok: false,
          message: `${tool.name} was not run: ${why}, and sandbox.failIfUnavailable refuses every command without it: ${summary}. Tell the user.`,
        };
      // never run unsandboxed without the person's answer for this command: no mode, rule or hook stands in for it
      return this.askOnce(call, signal, `${why}: it would run unsandboxed`);
    }
    if (plan.kind === 'outside' && plan.reason === 'escape') {
      if (plan.refused)
        return { ok: false, message: `${tool.name} was not run outside the sandbox: ${plan.refused}. Run it without dangerouslyDisableSandbox.` };
      if (mode === 'plan') return { ok: false, message: planRefusal(tool.name, summary) };
      if (mode === 'allow') return { ok: true, sandbox: 'outside' };
      const asked = await this.askOnce(call, signal, 'the model asks to run it outside the sandbox');
      return asked.ok ? { ok: true, sandbox: 'outside' } : asked;
    }
    if (mode === 'plan') return { ok: true, sandbox: 'readOnly' };
    if (preapproved) return { ok: true };
    if (plan.kind === 'inside' && plan.autoAllow && (mode === 'ask' || mode === 'acceptEdits')) return { ok: true };
    return this.byPolicy(call, signal);
  }

  /** The person approves this one call (no rule or "always" answer covers it); refused in print mode and in deny mode. */
  private async askOnce(call: GateCall, signal: AbortSignal, why: string): Promise<Authorization> {
    const { tool, summary, toolUseId, input } = call;
    if (this.policy.mode === 'deny') return { ok: false, message: `${tool.name} was not run (${why}; permissions mode "deny"): ${summary}.` };
    if (!this.approver)
      return {
        ok: false,
        message: `${tool.name} needs the user's approval (${why}), and nobody can approve in non-interactive mode, so it was not run: ${summary}.`,
      };
    const answer = await this.approver({ toolName: tool.name, toolUseId, input, summary, onceOnly: true, unsandboxed: why }, signal);
    if (answer.kind !== 'deny') return { ok: true };
    const said = answer.note ? ` and said: ${answer.note}` : '';
    return answer.stop
      ? { ok: false, stop: true, message: `The user denied this ${tool.name} call${said}, and stopped the turn: wait for their next message.` }
      : { ok: false, message: `The user denied this ${tool.name} call${said || '.'}` };
  }

  /** The permission policy, then the person. `unsandboxed`: why the command would run outside the sandbox (the prompt says so). */
  private async byPolicy(call: GateCall, signal: AbortSignal, unsandboxed?: string): Promise<Authorization> {
    const { tool, input, summary, toolUseId } = call;
    const traits = traitsOf(tool);
    if (traits.readOnly) {
      const read = await this.readBoundary.authorize({ toolName: tool.name, toolUseId, input, summary }, this.policy.mode, this.approver, signal);
      if (read) return read;
    }
    if (turnAllows(this.turnAllow, tool.name, input)) return { ok: true };
    const cwd = this.config().cwd;
    const scope = tool.permissionScope?.(input);
    const file = call.abs !== undefined ? { abs: call.abs, cwd } : undefined;
    const outside = file !== undefined && !isInside(cwd, file.abs);
    const decision = this.policy.decide(tool, input, file);
    if (decision === 'allow') return { ok: true };
    if (decision === 'deny') {
      return {
        ok: false,
        message: `${tool.name} is not allowed here (permissions mode "deny"); the call was not run. Do not retry it; find another way or ask the user.`,
      };
    }
    if (!this.approver) {
      const how = traits.editsFiles
        ? outside
          ? `${summary} is outside the working directory, and such edits run without asking only with --permission-mode allow`
          : 'The user can allow edits with --permission-mode acceptEdits (or allow)'
        : `The user can allow it with --allowed-tools ${tool.name.startsWith('mcp__') || scope ? `"${scope ? `${tool.name}(${scope})` : tool.name}"` : tool.name} ` +
          `or --permission-mode allow, or list it in permissions.allowTools / permissions.allowBash in .agentrc`;
      return {
        ok: false,
        message: `${tool.name} needs the user's approval${unsandboxed ? ` (${unsandboxed})` : ''}, and nobody can approve in non-interactive mode, so it was not run: ${summary}. ${how}.`,
      };
    }
    const prefix = tool.name === TOOL.Bash ? this.policy.suggestPrefix(summary) : undefined;
    const answer = await this.approver(
      {
        toolName: tool.name,
        toolUseId,
        input,
        summary,
        ...(prefix ? { suggestedPrefix: prefix } : {}),
        ...(tool.name === TOOL.Bash && !prefix ? { onceOnly: true } : {}),
        ...(call.diff ? { diff: call.diff } : {}),
        ...(outside ? { outsideCwd: true } : {}),
        ...(scope ? { sessionScope: scope } : {}),
        ...(unsandboxed ? { unsandboxed } : {}),
      },
      signal,
    );
    const before = this.policy.mode;
    this.policy.remember(tool, answer, scope);
    if (this.policy.mode !== before) this.modeChanged(this.policy.mode);
    if (answer.kind === 'deny') {
      const said = answer.note ? ` and said: ${answer.note}` : '';
      if (answer.stop)
        return { ok: false, stop: true, message: `The user denied this ${tool.name} call${said}, and stopped the turn: wait for their next message.` };
      return { ok: false, message: `The user denied this ${tool.name} call${said || '.'}` };
    }
    return { ok: true };
  }
}
