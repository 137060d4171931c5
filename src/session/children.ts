// The session side of sub-agents: runs each Task call's child as an ordinary session (its own
// history, gauge and compaction, persisted through the same log and linked to this one), at
// most agents.parallel at once, its approvals asked through this session's approver one at a
// time and labelled with the child, its limits (steps, tokens) enforced, and every way it can
// end turned into an outcome: a child never throws into its parent.
import { childToolNames, type AgentCatalog } from '../agents/agents.js';
import { nextChildState, queuedChild, type ChildState, type ChildUpdate } from '../agents/childState.js';
import type { ChildOutcome, ChildRequest, SubagentHost } from '../agents/host.js';
import { resultOf } from '../agents/taskTool.js';
import type { TurnResult } from '../agent/loop.js';
import { withEffort, withModel, type Config } from '../config/config.js';
import { EFFORTS } from '../config/thinking.js';
import { emptyUsage, textOf, totalInputTokens, type Message, type Usage } from '../llm/messages.js';
import type { ParentLink, SessionInfo, Store } from '../store/index.js';
import { collectToolCalls, messageText, speakerOf, type TextStyle } from '../llm/messageText.js';
import { readState } from './state.js';
import { followTodos } from '../plan/todos.js';
import type { ApprovalDecision, Approver, PermissionPolicy } from '../tools/permissions.js';
import type { AnyTool, BuiltinTools, ToolOutput } from '../tools/types.js';
import type { Effort, Provider } from '../llm/provider.js';
import type { SessionEvent } from '../protocol/events.js';
import { fmtInt } from '../tools/format.js';

/** Claude Code's model aliases in agent files. */
const MODEL_ALIASES: Readonly<Record<string, string>> = { sonnet: 'claude-sonnet-4-5', opus: 'claude-opus-4-1', haiku: 'claude-haiku-4-5' };

/** What a child session is opened with. */
export interface ChildSpec {
  config: Config;
  /** The built-in tools it gets, built for its own session. */
  tools: BuiltinTools;
  /** Every tool name it gets, the capabilities' (Task) included: a capability's tool outside it is left out. */
  toolNames: readonly string[];
  /** The agent's system prompt. */
  role: string;
  /** The child session's title: "agent: description". */
  title: string;
  parent: ParentLink;
  /** Its background commands still running when it ends go to the parent (Task's keep_background) instead of being stopped. */
  handBackground?: boolean;
  depth: number;
  approver?: Approver;
  /** The parent's session approvals (allowed prefixes, tools), so the child does not ask again. */
  permissions: unknown;
}

/** The child session as the runner drives it (a Session). */
export interface ChildSession {
  readonly id: string;
  on(listener: (e: SessionEvent) => void): () => void;
  prompt(text: string): Promise<TurnResult>;
  messages(): readonly Message[];
  interrupt(): boolean;
  close(): void;
}

export interface SubagentDeps {
  catalog: AgentCatalog;
  /** The parent's config as it stands when a child starts. */
  config: () => Config;
  /** The parent's permission policy: its mode and session approvals pass to each child, and what the person allows for the session in a child's prompt comes back to it. */
  policy: () => PermissionPolicy;
  parentId: string;
  /** The person's message that started the parent's current turn. */
  turnId: () => string;
  /** This session's depth (0 for a top-level session). */
  depth: number;
  /** The parent's built-in tools (a child gets those its agent names, built for its own session). */
  builtins: BuiltinTools;
  /** Every tool of the parent, the capabilities' included (its names, and the approval check of a child's call). */
  tools: () => readonly AnyTool[];
  approver?: Approver;
  open: (spec: ChildSpec) => ChildSession;
  bill: (model: string, usage: Usage) => void;
  /** Each child's state as it changes (/cost's lines, the UI's rows). */
  changed: (state: ChildState) => void;
}

export class Subagents implements SubagentHost {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  /** Approvals go to the person one at a time. */
  private approvals: Promise<unknown> = Promise.resolve();
  /** Every child this session ran, by Task call. */
  readonly states = new Map<string, ChildState>();

  constructor(private readonly deps: SubagentDeps) {}

  get catalog(): AgentCatalog {
    return this.deps.catalog;
  }

  get reportChars(): number {
    return this.deps.config().agents.reportChars;
  }

  async report(req: ChildRequest, signal: AbortSignal): Promise<ToolOutput> {
    return resultOf(await this.run(req, signal, () => {}), this.reportChars);
  }

  async run(req: ChildRequest, signal: AbortSignal, onUpdate: (state: ChildState) => void): Promise<ChildOutcome> {
    let state = queuedChild(req.toolUseId, req.agent, req.description, Date.now());
    const update = (u: ChildUpdate): void => {
      state = nextChildState(state, u);
      this.changed(state, onUpdate);
    };
    // "waiting for a slot" only when it does wait (agents.parallel children run already)
    if (this.running >= this.deps.config().agents.parallel) this.changed(state, onUpdate);
    const fail = (reason: 'provider' | 'limit' | 'cancelled' | 'internal', message: string, partial = ''): ChildOutcome => {
      update({ type: 'ended', status: reason === 'cancelled' ? 'cancelled' : 'failed', at: Date.now(), error: message });
      return { ok: false, reason, message, partial, state };
    };
    if (!(await this.slot(signal))) return fail('cancelled', 'cancelled before it started');
    try {
      return await this.runChild(req, signal, update, fail, () => state);
    } catch (e) {
      return fail('internal', e instanceof Error ? e.message : String(e));
    } finally {
      this.release();
    }
  }

  private async runChild(
    req: ChildRequest,
    signal: AbortSignal,
    update: (u: ChildUpdate) => void,
    fail: (reason: 'provider' | 'limit' | 'cancelled' | 'internal', message: string, partial?: string) => ChildOutcome,
    current: () => ChildState,
  ): Promise<ChildOutcome> {
    const parent = this.deps.config();
    const agent = req.agent;
    let config: Config = {
      ...parent,
      maxSteps: agent.maxSteps ?? parent.agents.maxSteps,
      permissions: { ...parent.permissions, mode: this.deps.policy().mode },
    };
    if (agent.model) config = withModel(config, MODEL_ALIASES[agent.model] ?? agent.model);
    // the agent's effort, where its model takes one (a level it cannot take ends the child with that error)
    if (agent.effort !== undefined && (EFFORTS as readonly string[]).includes(agent.effort)) config = withEffort(config, agent.effort as Effort);
    const depth = this.deps.depth + 1;
    const names = childToolNames(
      agent,
      this.deps.tools().map((t) => t.name),
      depth,
      parent.agents.maxDepth,
    );
    const label = `${agent.name}: ${req.description}`;
    const child = this.deps.open({
      config,
      tools: (session) => this.deps.builtins(session).filter((t) => names.includes(t.name)),
      toolNames: names,
      role: agent.prompt,
      title: label,
      parent: { id: this.deps.parentId, turn: this.deps.turnId(), toolUseId: req.toolUseId, agent: agent.name },
      ...(req.keepBackground ? { handBackground: true } : {}),
      depth,
      permissions: this.deps.policy().sessionState(),
      ...(this.deps.approver ? { approver: this.labelled(this.deps.approver, label) } : {}),
    });
    update({ type: 'started', sessionId: child.id, model: config.model.name, at: Date.now() });
    let providerError = '';
    let overLimit = '';
    // the child's TodoWrite sets the child's list (its own log), shown under its row in the parent
    const todos = followTodos((list) => update({ type: 'todos', todos: list }));
    const off = child.on((e) => {
      todos(e);
      if (e.type === 'tool_start') update({ type: 'tool', line: `${e.name} ${e.summary}`.trim() });
      else if (e.type === 'error') providerError = e.message;
      else if (e.type === 'usage') {
        this.deps.bill(e.model, e.usage);
        update({ type: 'tokens', tokens: totalInputTokens(e.usage) + e.usage.outputTokens });
        if (current().tokens > parent.agents.maxTokens && !overLimit) {
          overLimit = `it used ${fmtInt(current().tokens)} tokens, over agents.maxTokens (${fmtInt(parent.agents.maxTokens)})`;
          child.interrupt();
        }
      } else if (e.type === 'compaction_end' && e.record.usage) this.deps.bill(e.record.model, e.record.usage);
    });
    const cancel = (): void => void child.interrupt();
    signal.addEventListener('abort', cancel, { once: true });
    let result: TurnResult;
    try {
      result = signal.aborted ? { reason: 'aborted', steps: 0, usage: emptyUsage(), text: '' } : await child.prompt(req.prompt);
    } finally {
      signal.removeEventListener('abort', cancel);
      off();
      child.close();
    }
    const report = lastReply(child.messages());
    if (overLimit) return fail('limit', `stopped: ${overLimit}`, report);
    switch (result.reason) {
      case 'end_turn':
      case 'max_tokens':
        update({ type: 'ended', status: 'done', at: Date.now() });
        return { ok: true, report, state: current() };
      case 'aborted':
        return fail('cancelled', signal.aborted ? 'the user interrupted it' : 'it was interrupted', report);
      case 'max_steps':
        return fail('limit', `it made ${result.steps} model calls, its limit (maxSteps)`, report);
      case 'error':
        return fail('provider', providerError || 'the model call failed', report);
      case 'refusal':
        return fail('provider', 'the model refused the task', report);
      case 'stopped':
        return fail('cancelled', 'the user denied one of its tool calls and stopped it; do not start it again, wait for their next message', report);
      case 'blocked':
        return fail('cancelled', "a UserPromptSubmit hook refused the sub-agent's prompt", report);
    }
  }

  private changed(state: ChildState, onUpdate: (state: ChildState) => void): void {
    this.states.set(state.toolUseId, state);
    onUpdate(state);
    this.deps.changed(state);
  }

  /**
   * Asks through the parent's approver, one request at a time, each labelled with the child. An
   * answer for the session (a Bash prefix, a tool) is kept in the parent's policy, so neither the
   * parent nor another child asks for it again; a call such an answer already covers is not asked.
   */
  private labelled(approver: Approver, label: string): Approver {
    return (req, signal) => {
      const asked = this.approvals.then(async (): Promise<ApprovalDecision> => {
        if (signal.aborted) throw signal.reason;
        const policy = this.deps.policy();
        const tool = this.deps.tools().find((t) => t.name === req.toolName);
        if (tool && !req.diff && policy.decide(tool, req.input) === 'allow') return { kind: 'allow_once' };
        const answer = await approver({ ...req, agent: label }, signal);
        if (answer.kind === 'allow_prefix' || answer.kind === 'allow_tool') policy.remember(req.toolName, answer);
        return answer;
      });
      this.approvals = asked.catch(() => undefined);
      return asked;
    };
  }

  private async slot(signal: AbortSignal): Promise<boolean> {
    if (this.running < this.deps.config().agents.parallel) {
      this.running++;
      return true;
    }
    return new Promise((resolve) => {
      const go = (): void => {
        signal.removeEventListener('abort', drop);
        this.running++;
        resolve(true);
      };
      const drop = (): void => {
        const i = this.waiting.indexOf(go);
        if (i >= 0) this.waiting.splice(i, 1);
        resolve(false);
      };
      signal.addEventListener('abort', drop, { once: true });
      this.waiting.push(go);
    });
  }

  private release(): void {
    this.running--;
    this.waiting.shift()?.();
  }
}

/** The child's report: its last assistant message's text. */
function lastReply(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'assistant' && m.kind === 'normal') {
      const t = textOf(m).trim();
      if (t) return t;
    }
  }
  return '';
}

/** A child session's deps: the parent's, with the child's config, tools, labelled approver and role; its own provider when its model is of another family. */
export function childDeps<D extends { approver?: Approver; providerFor?: ((config: Config, purpose?: string) => Provider) | undefined }>(
  parent: D,
  spec: ChildSpec,
  provider: Provider,
  config: Config,
): Omit<D, 'approver'> & { config: Config; provider: Provider; tools: BuiltinTools; approver?: Approver; child: ChildSpec } {
  const same = spec.config.provider === config.provider;
  const own = same ? provider : (parent.providerFor?.(spec.config, `the agent model "${spec.config.model.name}"`) ?? provider);
  const { approver: _parents, ...rest } = parent;
  return { ...rest, config: spec.config, provider: own, tools: spec.tools, ...(spec.approver ? { approver: spec.approver } : {}), child: spec };
}

/** What the runner of a session's sub-agents takes from the session's deps. */
export function childParent(
  deps: { tools: BuiltinTools; approver?: Approver | undefined; child?: { depth: number } | undefined },
  parentId: string,
  catalog: AgentCatalog,
): Pick<SubagentDeps, 'catalog' | 'parentId' | 'depth' | 'builtins' | 'approver'> {
  return { catalog, parentId, depth: deps.child?.depth ?? 0, builtins: deps.tools, ...(deps.approver ? { approver: deps.approver } : {}) };
}

export interface ChildCost {
  id: string;
  /** "agent: description". */
  label: string;
  cost: Record<string, Usage>;
}

/** What the front ends show of a session's sub-agents. */
export interface SubagentInfo {
  catalog: AgentCatalog | undefined;
  costs: ChildCost[];
  /** A child's whole transcript as text (undefined: not a child of this session). */
  transcript(childId: string): string | undefined;
}

export function subagentInfo(catalog: AgentCatalog | undefined, store: Store, parentId: string, stored: boolean): SubagentInfo {
  const children = (): SessionInfo[] => (stored ? store.childSessions(parentId) : []);
  return {
    catalog,
    // what each child used, from the children's own saved state (so a resumed parent has them too)
    costs: children().map((c) => ({ id: c.id, label: c.title ?? c.parent?.agent ?? 'agent', cost: readState(c.meta, c.id).cost })),
    transcript: (childId) => {
      const child = children().find((c) => c.id === childId);
      if (!child) return undefined;
      const rows = store.loadTranscript(child.id, { includeArchived: true }).map((r) => r.message);
      const calls = collectToolCalls(rows);
      const body = rows.map((m) => `── ${speakerOf(m)}\n${messageText(m, TRANSCRIPT_STYLE, calls)}`).join('\n\n');
      return `${child.title ?? child.id} · session ${child.id} · ${child.model}\n\n${body}`;
    },
  };
}

const TRANSCRIPT_STYLE: TextStyle = {
  separator: '\n',
  toolUse: (b) => `→ ${b.name} ${JSON.stringify(b.input)}`,
  toolResult: (b) => `← ${b.isError ? 'error: ' : ''}${b.content}`,
};

/** What a child session's capabilities know of its parent (CapabilityHost.parent); nothing for a top-level session. */
export function parentOf(child: Pick<ChildSpec, 'parent' | 'title' | 'handBackground'> | undefined): {
  parent?: { id: string; label: string; handBackground: boolean };
} {
  return child ? { parent: { id: child.parent.id, label: child.title, handBackground: child.handBackground === true } } : {};
}
