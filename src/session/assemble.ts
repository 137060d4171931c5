// The session's assembly: what one live session is made of, built in the order each part needs
// the others — the log (new, or resumed where it stood), the file tracker rebuilt from it, the
// capabilities opened over the session's turn, the context control, the history edits, the tool
// gate, the spill sink — and the sub-agent runner, made when a capability first asks for one.
// Session (session.ts) drives the turn over these parts; what only it holds (the cost, the busy
// flag, its events) it lends through SessionOwner.
import { existsSync } from 'node:fs';
import type { LoopOptions } from '../agent/loop.js';
import type { AgentCatalog } from '../agents/agents.js';
import type { CapabilityHost, TurnHost } from '../capability/capability.js';
import type { Config } from '../config/config.js';
import { newId, type Usage } from '../llm/messages.js';
import type { NewSession, SessionInfo } from '../store/index.js';
import { FileTracker } from '../tools/fileTracker.js';
import { charsOfTokens } from '../tools/spill.js';
import { parseToolList } from '../tools/toolNames.js';
import type { AnyTool, RecallSource, SpillSink, ToolSession } from '../tools/types.js';
import { Capabilities } from './capabilities.js';
import { type ChildSession, type ChildSpec, childDeps, childParent, parentOf, type SubagentInfo, Subagents, subagentInfo } from './children.js';
import { ContextControl } from './contextControl.js';
import { HistoryEdits } from './historyEdits.js';
import type { SessionEvent } from '../protocol/events.js';
import { archiveRecall, archiveSpill } from './recall.js';
import type { SessionDeps } from './sessionDeps.js';
import { SessionLog } from './sessionLog.js';
import { readState, type SessionState } from './state.js';
import { ToolGate } from './toolGate.js';
import { persistReads, rebuildTracker } from './trackerRebuild.js';
import { gatedShell, InlineCommandRefused } from './turnScope.js';
import { TurnSnapshots } from './turnSnapshots.js';

/** What the session lends its parts (each read when called, never while they are built). */
export interface SessionOwner {
  emit(e: SessionEvent): void;
  notice(level: 'info' | 'warning' | 'error', text: string): void;
  /** The row a new session is stored with on its first message. */
  describe(): NewSession;
  bill(model: string, usage: Usage): void;
  saveState(): void;
  /** A turn or a compaction runs. */
  busy(): boolean;
  /** After a rewind or a revert: accounting restarts from estimates, the UI redraws. */
  historyReplaced(): void;
  /** Opens a sub-agent's session (Session.open). */
  openChild(deps: SessionDeps): ChildSession;
}

export type SessionParts = ReturnType<typeof assemble>;

/** Builds a new session (stored on its first message) or a stored one resumed where it stood. */
export function assemble(deps: SessionDeps, owner: SessionOwner, resume?: SessionInfo) {
  const id = resume?.id ?? newId('s');
  const state: SessionState = resume ? readState(resume.meta, id) : readState(deps.child ? { permissions: deps.child.permissions } : {}, id);
  let sub: { catalog: AgentCatalog; runner: Subagents } | undefined;
  const files: FileTracker = new FileTracker(persistReads(deps.store, () => log));
  const logDeps = {
    ...deps,
    dbPath: deps.config.dbPath,
    notice: owner.notice,
    describe: owner.describe,
    stored: () => files.flushPending(),
    unsavedChanged: (count: number, error?: string) => owner.emit({ type: 'unsaved', count, ...(error ? { error } : {}) }),
  };
  // one writer per session: resuming throws SessionInUseError while another live process writes it
  const opened = resume ? SessionLog.resume(resume, logDeps) : { log: SessionLog.create(id, logDeps), notes: [] };
  const log = opened.log;
  const moved = resume ? otherDirectoryNote(id, resume.cwd, deps.config.cwd) : null;
  const loadNotes = moved ? [...opened.notes, moved] : opened.notes;
  const snapshots = new TurnSnapshots(deps.store, log);
  const subagents = (catalog: AgentCatalog): Subagents => {
    if (sub?.catalog === catalog) return sub.runner;
    const runner = new Subagents({
      ...childParent(deps, id, catalog),
      tools: () => tools,
      changed: (s) => owner.emit({ type: 'child', state: s }),
      config: () => context.config,
      policy: () => gate.policy,
      turnId: () => snapshots.turn ?? '',
      bill: owner.bill,
      open: (spec) => owner.openChild(childDeps(deps, spec, context.provider, context.config)),
    });
    sub = { catalog, runner };
    return runner;
  };
  const host: CapabilityHost = {
    sessionId: id,
    resumed: log.messages().length > 0,
    subagents,
    turn: turnHost(() => ({ gate, log, context, direct, emit: owner.emit })),
    ...parentOf(deps.child),
  };
  const caps = new Capabilities(deps.capabilities, host, state.capabilities);
  const spill: SpillSink | undefined = deps.store.readonly
    ? undefined
    : archiveSpill(
        deps.store,
        // an output archived before the session's first message (a spilled @mention in its first prompt) needs its row
        () => (log.ensureStored(), id),
        () => context.config.output,
      );
  /** The session's archive, for the Recall tool and /history. */
  const recall = (): RecallSource => archiveRecall(deps.store, id, () => context.config.recall.crossSession);
  // the built-in tools close over what the session lends them
  const lent: ToolSession = {
    files,
    recall: recall(),
    resultChars: (name) => (spill ? charsOfTokens(spill.thresholdFor(name)) : 0),
    beforeFileChange: (abs, prior, mode) => snapshots.before(abs, prior, mode),
    ...caps.toolSession(),
  };
  // a sub-agent gets the capabilities' tools its agent names (the Task tool below agents.maxDepth)
  const own = caps.tools().filter((t) => !deps.child || deps.child.toolNames.includes(t.name));
  const tools: readonly AnyTool[] = [...deps.tools(lent), ...own];
  // the two other sets are built when first needed (not at start-up)
  const later: { direct?: readonly AnyTool[]; dry?: readonly AnyTool[] } = {};
  /** The built-in tools as the person's own commands run them (`!cmd`, a skill's inline commands, @mentions): here, in the foreground, over the session's tracker only. */
  const direct = (): readonly AnyTool[] => (later.direct ??= deps.tools({ files }));
  /** The built-in tools over nothing of the session (a prompt measured before it is sent: its @mentions count as read only once it is). */
  const dry = (): readonly AnyTool[] => (later.dry ??= deps.tools({}));
  rebuildTracker(deps.store, id, log.messages(), files);
  const context: ContextControl = new ContextControl(
    {
      sessionId: id,
      log,
      tools,
      counter: deps.counter,
      providerFor: deps.providerFor,
      engine: deps.engine,
      emit: owner.emit,
      notice: owner.notice,
      bill: owner.bill,
      saveState: owner.saveState,
      cacheKey: cacheKeyOf(id, deps.child),
      busy: owner.busy,
      ...(deps.child ? { role: deps.child.role } : {}),
      caps,
    },
    deps.config,
    deps.provider,
    state,
  );
  const edits = new HistoryEdits({
    store: deps.store,
    sessionId: id,
    log,
    context,
    files,
    busy: owner.busy,
    replaced: owner.historyReplaced,
    tree: () => caps.checkpoints(),
  });
  const gate: ToolGate = new ToolGate(
    () => context.config,
    state.permissions,
    caps.asking(deps.approver),
    (mode) => owner.emit({ type: 'permission_mode', mode }),
  );
  const loopOptions = (): LoopOptions => ({
    ...loopSettings(context.config, cacheKeyOf(id, deps.child)),
    provider: context.provider,
    tools: context.allTools,
    gate: { authorize: (call, signal, pre) => gate.authorize(call, signal, pre) },
    ...(spill ? { spill } : {}),
    ...caps.loopOption(),
  });
  const info = (): SubagentInfo => subagentInfo(sub?.catalog, deps.store, id, log.isStored);
  return { id, state, loadNotes, log, files, snapshots, caps, tools, direct, dry, context, edits, gate, spill, recall, loopOptions, subagentInfo: info };
}

/** What of the session a tool call's turn uses (read when the call runs: the parts are built after the capabilities). */
interface SessionTurn {
  gate: ToolGate;
  log: SessionLog;
  context: ContextControl;
  /** The built-in tools the person's own commands run (a skill's inline commands). */
  direct: () => readonly AnyTool[];
  emit: (e: SessionEvent) => void;
}

/** The capabilities' TurnHost (the Skill tool's history, allowances and gated commands; plan mode's questions). */
function turnHost(turn: () => SessionTurn): TurnHost {
  return {
    history: () => turn().log.messages(),
    allowTools: (written) => {
      const t = turn();
      const parsed = parseToolList(written, [...t.context.allTools.map((x) => x.name)]);
      t.gate.turnAllow = [...t.gate.turnAllow, ...parsed.entries];
      return parsed.unknown;
    },
    shell: async (command, signal, preapproved) => {
      const t = turn();
      try {
        return { output: await gatedShell(t.direct(), t.gate, command, t.context.config.cwd, signal, t.emit, preapproved) };
      } catch (e) {
        if (e instanceof InlineCommandRefused) return { refused: e.message };
        throw e;
      }
    },
    notice: (level, text) => turn().emit({ type: 'notice', level, text }),
    activity: (label, done) => turn().emit({ type: 'activity', label, done }),
    permissionMode: () => turn().gate.mode,
    askPlan: (plan, toolUseId, signal) => turn().gate.askPlan(plan, toolUseId, signal),
    setPermissionMode: (mode) => void turn().gate.setMode(mode),
    workLog: () => {
      const log = turn().log;
      return [...log.archived(), ...log.messages()];
    },
  };
}

/** Quotes a path for a POSIX shell when it needs it. */
const shellQuote = (p: string): string => (/^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`);

/**
 * A session resumed from another directory: its tools would run there without a word, so the
 * person is told where the session was started and how to go back to it; null when it is the same.
 */
function otherDirectoryNote(id: string, startedIn: string, cwd: string): string | null {
  if (startedIn === cwd) return null;
  const back = existsSync(startedIn)
    ? `To work there again, exit and run: cd ${shellQuote(startedIn)} && agent --resume ${id}`
    : `That directory no longer exists.`;
  return `This session was started in ${startedIn}; its tools now run in ${cwd}. ${back}`;
}

/** What a turn's loop takes straight from the configuration in effect (and the session's cache key). */
function loopSettings(config: Config, cacheKey: string): Pick<LoopOptions, 'model' | 'maxSteps' | 'patience' | 'maxOutputRecoveries' | 'cwd' | 'request'> {
  return {
    model: config.model.name,
    maxSteps: config.maxSteps,
    patience: { retry: config.retry, giveUpAfterMs: config.timeouts.totalMs },
    maxOutputRecoveries: config.compaction.maxOutputRecoveries,
    cwd: config.cwd,
    request: {
      ...(config.model.images === false ? { images: false } : {}),
      ...(config.thinking ? { thinking: config.thinking } : {}),
      // the adapters without a search (Chat Completions) leave it out
      ...(config.webSearch.enabled ? { webSearch: config.webSearch } : {}),
      cacheKey,
    },
  };
}

/** The provider's cache key: the session id; children of one agent share one (OpenAI routes by it), as they share the prefix. */
function cacheKeyOf(sessionId: string, child: Pick<ChildSpec, 'parent'> | undefined): string {
  return child ? `${child.parent.id}:${child.parent.agent}` : sessionId;
}
