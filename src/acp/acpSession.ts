import type {
  AgentContext,
  ContentBlock,
  PromptResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionModeState,
  SessionUpdate,
  StopReason,
} from '@agentclientprotocol/sdk';
import { fileURLToPath } from 'node:url';
import type { Runtime } from '../bootstrap.js';
import { CommandError, commandInfos, findCustom, isCommandLine, runSlash } from '../commands/registry.js';
import { CustomCommandError, runCustom } from '../commands/customRun.js';
import { formatCommandOutput } from '../commands/format.js';
import type { PermissionMode } from '../config/schema.js';
import { receiptText } from '../compaction/reportText.js';
import type { CompactionRecord } from '../history/compaction.js';
import type { TurnResult } from '../agent/loop.js';
import type { ImageBlock } from '../llm/messages.js';
import { redact } from '../log.js';
import type { SessionEvent } from '../protocol/events.js';
import type { ApprovalDecision, ApprovalRequest } from '../tools/permissions.js';
import { acpKind, editDiff, planEntries, textContent, toolLocations, toolTitle } from './updates.js';

// One ACP session: a runtime of this program (the same store, config and tools the TUI uses)
// driven by an editor. The session's events become session/update notifications, approvals
// become session/request_permission, session/cancel interrupts the turn (its commands stopped).

const MODES: ReadonlyArray<{ id: PermissionMode; name: string; description: string }> = [
  { id: 'ask', name: 'Ask', description: 'Ask before Bash and edits' },
  { id: 'acceptEdits', name: 'Accept edits', description: 'Edits run without asking; Bash still asks' },
  { id: 'plan', name: 'Plan', description: 'Only reading runs; the model presents a plan to approve' },
  { id: 'allow', name: 'Allow everything', description: 'Nothing asks' },
  { id: 'deny', name: 'Deny', description: 'Refuse whatever needs approval' },
];

const STOP: Record<string, StopReason> = {
  end_turn: 'end_turn',
  max_tokens: 'max_tokens',
  max_steps: 'max_turn_requests',
  refusal: 'refusal',
  aborted: 'cancelled',
  stopped: 'end_turn',
  blocked: 'refusal',
  error: 'end_turn',
};

/** The person's words and images of an ACP prompt; a linked or embedded file becomes an @mention or its text. */
export function promptOf(blocks: readonly ContentBlock[]): { text: string; images: ImageBlock[] } {
  const parts: string[] = [];
  const images: ImageBlock[] = [];
  for (const b of blocks) {
    if (b.type === 'text') parts.push(b.text);
    else if (b.type === 'image') images.push({ type: 'image', mediaType: b.mimeType, data: b.data });
    else if (b.type === 'resource_link') parts.push(b.uri.startsWith('file://') ? `@${fileURLToPath(b.uri)}` : b.uri);
    else if (b.type === 'resource' && 'text' in b.resource) parts.push(`<context ref="${b.resource.uri}">\n${b.resource.text}\n</context>`);
  }
  return { text: parts.join('\n').trim(), images };
}

export class AcpSession {
  private off: () => void;
  private cancelled = false;
  /** The editor terminal each running Bash call shows (terminal/*). */
  private readonly terminals = new Map<string, string>();
  /** The task list last sent as a plan update (JSON), to send each change once. */
  private sentPlan = '[]';

  constructor(
    readonly id: string,
    readonly runtime: Runtime,
    private readonly client: AgentContext,
  ) {
    const goals = runtime.goals;
    const offSession = runtime.session.on((e) => (goals.of(this.runtime.session.id)?.observe(e), this.onEvent(e)));
    // the goal (/goal) travels in session_info_update's _meta: ACP has no word for it
    const offGoal = goals.subscribe(
      (sid, goal) => sid === runtime.session.id && this.update({ sessionUpdate: 'session_info_update', _meta: { agentGoal: goal ?? null } }),
    );
    this.off = () => (offSession(), offGoal());
  }

  get cwd(): string {
    return this.runtime.session.currentConfig.cwd;
  }

  modes(): SessionModeState {
    return { currentModeId: this.runtime.session.permissions().mode, availableModes: MODES.map((m) => ({ ...m })) };
  }

  update(update: SessionUpdate): void {
    void this.client.notify('session/update', { sessionId: this.id, update }).catch(() => {});
  }

  /** The slash commands the editor offers (custom ones included); /compact among them. */
  advertiseCommands(): void {
    this.update({
      sessionUpdate: 'available_commands_update',
      // not /clear, /resume, /exit, /quit: they need the TUI's actions and would only be refused here
      availableCommands: commandInfos(this.runtime.commands, { app: false }, this.runtime.slash).map((c) => ({
        name: c.name,
        description: c.description,
        ...(c.args ? { input: { hint: c.args } } : {}),
      })),
    });
  }

  /** A Bash call runs in an editor terminal: the call shows it, live. */
  attachTerminal(toolUseId: string, terminalId: string): void {
    this.terminals.set(toolUseId, terminalId);
    this.update({ sessionUpdate: 'tool_call_update', toolCallId: toolUseId, content: [{ type: 'terminal', terminalId }] });
  }

  /** The task list (the seam's `todos` view) as ACP's plan, sent when it differs from what the editor was last told (a TodoWrite, a /rewind, a load). */
  syncPlan(): void {
    const todos = this.runtime.views.todos?.(this.runtime.session, '')?.todos ?? [];
    const key = JSON.stringify(todos);
    if (key === this.sentPlan) return;
    this.sentPlan = key;
    this.update({ sessionUpdate: 'plan', entries: planEntries(todos) });
  }

  setMode(mode: string): void {
    const found = MODES.find((m) => m.id === mode);
    if (!found) throw new Error(`session/set_mode: unknown mode "${mode}" (one of ${MODES.map((m) => m.id).join(', ')})`);
    this.runtime.session.setPermissionMode(found.id);
  }

  /** A tool asks: the editor shows the call (an edit as its diff) with allow once / allow always / reject; a plan with the plan's choices. */
  async approve(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    if (req.plan !== undefined) return this.approvePlan(req, req.plan, signal);
    const always = !req.onceOnly && !(req.diff && req.outsideCwd);
    const params: RequestPermissionRequest = {
      sessionId: this.id,
      toolCall: {
        toolCallId: req.toolUseId || `approval_${Date.now()}`,
        title: req.projectCode ? `Run ${req.projectCode.what} from ${req.projectCode.file}: ${req.summary}` : toolTitle(req.toolName, req.summary),
        kind: acpKind(req.toolName),
        status: 'pending',
        rawInput: req.input,
        locations: toolLocations(req.input, this.cwd),
        content: editDiff(req.toolName, req.input, this.cwd),
      },
      options: [
        { optionId: 'allow_once', name: req.diff ? 'Apply once' : 'Allow once', kind: 'allow_once' },
        ...(always
          ? [
              {
                optionId: 'allow_always',
                name: req.diff
                  ? 'Accept edits for the session'
                  : req.suggestedPrefix
                    ? `Allow \`${req.suggestedPrefix}\` commands`
                    : `Always allow ${req.toolName}`,
                kind: 'allow_always' as const,
              },
            ]
          : []),
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ],
    };
    const outcome = await this.askPermission(params, signal);
    if (outcome.outcome === 'cancelled') return { kind: 'deny', stop: true };
    if (outcome.optionId === 'allow_once') return { kind: 'allow_once' };
    if (outcome.optionId === 'allow_always') {
      if (req.diff) return { kind: 'accept_edits' };
      return req.suggestedPrefix ? { kind: 'allow_prefix', prefix: req.suggestedPrefix } : { kind: 'allow_tool' };
    }
    return { kind: 'deny' };
  }

  /**
   * ExitPlanMode: the plan itself, with the TUI's choices an editor can offer: approve it (edits and
   * commands still ask), approve it and accept edits, or keep planning (the turn ends, the person
   * says what to change). Never an "always": each plan is approved on its own.
   */
  private async approvePlan(req: ApprovalRequest, plan: string, signal: AbortSignal): Promise<ApprovalDecision> {
    const outcome = await this.askPermission(
      {
        sessionId: this.id,
        toolCall: {
          toolCallId: req.toolUseId || `approval_${Date.now()}`,
          title: 'Approve this plan?',
          kind: 'think',
          status: 'pending',
          rawInput: req.input,
          content: textContent(plan),
        },
        options: [
          { optionId: 'plan_approve', name: 'Approve the plan; edits and commands still ask', kind: 'allow_once' },
          { optionId: 'plan_accept_edits', name: 'Approve the plan, and accept edits for the rest of the session', kind: 'allow_once' },
          { optionId: 'plan_keep_planning', name: 'Keep planning: say what to change in your next message', kind: 'reject_once' },
        ],
      },
      signal,
    );
    if (outcome.outcome === 'cancelled') return { kind: 'deny', stop: true };
    if (outcome.optionId === 'plan_approve') return { kind: 'allow_once' };
    if (outcome.optionId === 'plan_accept_edits') return { kind: 'accept_edits' };
    return { kind: 'deny', stop: true };
  }

  /** session/request_permission; a cancelled turn, an editor that went away or refused, all answer `cancelled`. */
  private async askPermission(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse['outcome']> {
    const res = await this.client
      .request('session/request_permission', params, { cancellationSignal: signal, stopWaitingOnCancel: true })
      .catch(() => ({ outcome: { outcome: 'cancelled' as const } }));
    return res.outcome;
  }

  cancel(): void {
    this.cancelled = true;
    if (!this.runtime.session.interrupt()) this.runtime.goals.of(this.runtime.session.id)?.interrupt();
  }

  async prompt(blocks: readonly ContentBlock[]): Promise<PromptResponse> {
    this.cancelled = false;
    const { session, commands, toolNames, slash, sandbox, goals } = this.runtime;
    const { text, images } = promptOf(blocks);
    const custom = findCustom(text, commands, slash);
    // an active goal goes on after the prompt or command, turn after turn, until it ends or the editor cancels
    const goalTurns = async (result: TurnResult | undefined): Promise<TurnResult | undefined> => {
      for (let next = await goals.next(session.id, session.permissions().mode === 'plan'); next !== undefined && !this.cancelled; ) {
        result = await session.prompt(next);
        next = await goals.next(session.id, session.permissions().mode === 'plan');
      }
      return result;
    };
    try {
      if (!custom && images.length === 0 && isCommandLine(text, commands, slash)) {
        const output = await runSlash({ session, custom: commands, toolNames, more: slash, sandbox }, text);
        if (output) this.say(formatCommandOutput(output));
        const result = await goalTurns(undefined);
        return { stopReason: this.cancelled ? 'cancelled' : ((result && STOP[result.reason]) ?? 'end_turn') };
      }
      const result = (await goalTurns(await (custom ? runCustom(session, custom.cmd, custom.args, toolNames) : session.prompt(text, { images }))))!;
      const goal = goals.of(session.id)?.current;
      // a goal that ended (its check passed, a budget ran out) ends the prompt well, whatever its last turn's step count
      const ended = goal !== undefined && (goal.status === 'complete' || goal.status === 'budget_limited') && result.reason === 'max_steps';
      return { stopReason: this.cancelled ? 'cancelled' : ended ? 'end_turn' : (STOP[result.reason] ?? 'end_turn') };
    } catch (e) {
      if (e instanceof CommandError || e instanceof CustomCommandError) {
        this.say(e.message);
        return { stopReason: 'end_turn' };
      }
      throw e;
    } finally {
      // a command may have changed the list without a TodoWrite (/rewind, /clear)
      this.syncPlan();
    }
  }

  private say(text: string, meta?: Record<string, unknown>): void {
    this.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text }, ...(meta ? { _meta: meta } : {}) });
  }

  private onEvent(e: SessionEvent): void {
    switch (e.type) {
      case 'text_delta':
        this.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: e.text } });
        break;
      case 'thinking_delta':
        if (e.text) this.update({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: e.text } });
        break;
      case 'tool_start':
        this.update({
          sessionUpdate: 'tool_call',
          toolCallId: e.id,
          title: toolTitle(e.name, e.summary),
          kind: acpKind(e.name),
          status: 'in_progress',
          rawInput: e.input,
          locations: toolLocations(e.input, this.cwd),
          content: editDiff(e.name, e.input, this.cwd),
        });
        break;
      case 'tool_end': {
        const terminalId = this.terminals.get(e.id);
        this.terminals.delete(e.id);
        this.update({
          sessionUpdate: 'tool_call_update',
          toolCallId: e.id,
          status: e.status === 'done' ? 'completed' : 'failed',
          // a command run in an editor terminal stays shown there (its output is the terminal's)
          content: terminalId ? [{ type: 'terminal', terminalId }] : textContent(e.output.content),
          rawOutput: { status: e.status, durationMs: e.durationMs },
        });
        break;
      }
      case 'message':
        // a tool's result joined the log (a TodoWrite's sets the task list, which the log now holds)
        if (e.message.blocks.some((b) => b.type === 'tool_result')) this.syncPlan();
        break;
      case 'permission_mode':
        this.update({ sessionUpdate: 'current_mode_update', currentModeId: e.mode });
        break;
      case 'error':
        this.say(`\n\nError: ${redact(e.message)}`);
        break;
      case 'notice':
        if (e.level !== 'info') this.say(`\n\n${e.level === 'warning' ? 'Warning' : 'Error'}: ${redact(e.text)}`);
        break;
      // nothing was sent (a corrupt image, a prompt larger than the window): the editor is told why
      case 'prompt_refused':
        this.say(`Error: ${redact(e.message)}`);
        break;
      case 'compaction_end':
        if (e.record.trigger !== 'micro') this.reportCompaction(e.record);
        break;
      default:
        break;
    }
  }

  /** A compaction (manual or automatic) told to the editor: its receipt as text, the context's use in _meta. */
  private reportCompaction(r: CompactionRecord): void {
    const usage = this.runtime.session.contextUsage();
    this.say(`\n${receiptText(r, false)}\n`, {
      agent: {
        compaction: { id: r.id, trigger: r.trigger, status: r.status, tokensBefore: r.tokensBefore, tokensAfter: r.tokensAfter },
        contextUsage: usage,
      },
    });
  }

  close(): void {
    this.off();
    this.runtime.close();
  }
}
