// The session's assembly: what one live session is made of, built in the order each part needs
// the others — the log (new, or resumed where it stood), the file tracker rebuilt from it, the
// capabilities opened over the session's turn, the spill sink, the tools, the turn's frame, the
// compactor, the history edits, the tool gate — and the sub-agent runner, made when a capability
// first asks for one. Each part is built from the ones above it; what the capabilities call back
// into at run time is bound once it exists.
// Session (session.ts) drives the turn over these parts; what only it holds (the cost, the busy
// flag, its events) it lends through SessionOwner.
import { existsSync } from 'node:fs';
import type { LoopOptions } from '../agent/loop.js';
import type { AgentCatalog } from '../agents/agents.js';
import type { CapabilityHost } from '../capability/capability.js';
import { newId, type Usage } from '../llm/messages.js';
import type { SessionEvent } from '../protocol/events.js';
import type { NewSession, SessionInfo } from '../store/index.js';
import { FileTracker } from '../tools/fileTracker.js';
import { charsOfTokens } from '../tools/spill.js';
import type { AnyTool, RecallSource, SpillSink, ToolSession } from '../tools/types.js';
import { Capabilities } from './capabilities.js';
import { type ChildSession, type ChildSpec, childDeps, childParent, parentOf, type SubagentInfo, Subagents, subagentInfo } from './children.js';
import { Compactor } from './compactor.js';
import { frameChanges } from './frameChanges.js';
import { HistoryEdits } from './historyEdits.js';
import { archiveRecall, archiveSpill } from './recall.js';
import type { SessionDeps } from './sessionDeps.js';
import { SessionLog } from './sessionLog.js';
import { readState, type SessionState } from './state.js';
import { ToolGate } from './toolGate.js';
import { persistReads, rebuildTracker } from './trackerRebuild.js';
import { turnHost, type TurnParts } from './turnScope.js';
import { TurnFrames } from './turnFrame.js';
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
  const cacheKey = cacheKeyOf(id, deps.child);
  // the file tracker's records wait for a new session's row, which the log writes with its first message
  const reads = persistReads(deps.store, id, resume !== undefined);
  const logDeps = {
    ...deps,
    dbPath: deps.config.dbPath,
    notice: owner.notice,
    describe: owner.describe,
    stored: reads.flush,
    unsavedChanged: (count: number, error?: string) => owner.emit({ type: 'unsaved', count, ...(error ? { error } : {}) }),
  };
  // one writer per session: resuming throws SessionInUseError while another live process writes it
  const opened = resume ? SessionLog.resume(resume, logDeps) : { log: SessionLog.create(id, logDeps), notes: [] };
  const log = opened.log;
  const files = new FileTracker(reads);
  const moved = resume ? otherDirectoryNote(id, resume.cwd, deps.config.cwd) : null;
  const loadNotes = moved ? [...opened.notes, moved] : opened.notes;
  const snapshots = new TurnSnapshots(deps.store, log);
  // the capabilities are opened before the parts built from them (the tools, the frame, the gate),
  // which they call back into at run time: those are bound below, once they exist
  const bound = late<BoundParts>();
  let sub: { catalog: AgentCatalog; runner: Subagents } | undefined;
  const subagents = (catalog: AgentCatalog): Subagents => {
    if (sub?.catalog === catalog) return sub.runner;
    const runner = new Subagents({
      ...childParent(deps, id, catalog),
      tools: () => bound.get().tools,
      changed: (s) => owner.emit({ type: 'child', state: s }),
      config: () => bound.get().frames.current.config,
      policy: () => bound.get().gate.policy,
      turnId: () => snapshots.turn ?? '',
      bill: owner.bill,
      open: (spec) => {
        const { config, provider } = bound.get().frames.current;
        return owner.openChild(childDeps(deps, spec, provider, config));
      },
    });
    sub = { catalog, runner };
    return runner;
  };
  const host: CapabilityHost = {
    sessionId: id,
    resumed: log.messages().length > 0,
    subagents,
    turn: turnHost(bound.get),
    ...parentOf(deps.child),
  };
  const caps = new Capabilities(deps.capabilities, host, state.capabilities);
  // (the output and recall settings are the run's: /model and /effort change neither)
  const spill: SpillSink | undefined = deps.store.readonly
    ? undefined
    : archiveSpill(
        deps.store,
        // an output archived before the session's first message (a spilled @mention in its first prompt) needs its row
        () => (log.ensureStored(), id),
        () => deps.config.output,
      );
  /** The session's archive, for the Recall tool and /history. */
  const recall = (): RecallSource => archiveRecall(deps.store, id, () => deps.config.recall.crossSession);
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
  const sets: { direct?: readonly AnyTool[]; dry?: readonly AnyTool[] } = {};
  /** The built-in tools as the person's own commands run them (`!cmd`, a skill's inline commands, @mentions): here, in the foreground, over the session's tracker only. */
  const direct = (): readonly AnyTool[] => (sets.direct ??= deps.tools({ files }));
  /** The built-in tools over nothing of the session (a prompt measured before it is sent: its @mentions count as read only once it is). */
  const dry = (): readonly AnyTool[] => (sets.dry ??= deps.tools({}));
  rebuildTracker(deps.store, id, log.messages(), files);
  const frames = new TurnFrames({ tools, caps, role: deps.child?.role }, deps.config, deps.provider);
  const compactor = new Compactor(
    {
      sessionId: id,
      log,
      frames,
      counter: deps.counter,
      providerFor: deps.providerFor,
      engine: deps.engine,
      emit: owner.emit,
      notice: owner.notice,
      bill: owner.bill,
      saveState: owner.saveState,
      cacheKey,
      busy: owner.busy,
      caps,
    },
    state,
  );
  const edits = new HistoryEdits({
    store: deps.store,
    sessionId: id,
    log,
    cwd: deps.config.cwd,
    compactor,
    files,
    busy: owner.busy,
    replaced: owner.historyReplaced,
    tree: () => caps.checkpoints(),
  });
  const gate: ToolGate = new ToolGate(
    () => frames.current.config,
    state.permissions,
    caps.asking(deps.approver),
    (mode) => owner.emit({ type: 'permission_mode', mode }),
  );
  bound.set({ gate, log, frames, tools, direct, emit: owner.emit });
  /** The loop's options for a turn: the frame in force when it starts (its model, provider and tools). */
  const loopOptions = (): LoopOptions => {
    const frame = frames.current;
    return {
      ...loopSettings(frame.config, cacheKey),
      provider: frame.provider,
      tools: frame.tools,
      gate: { authorize: (call, signal, pre) => gate.authorize(call, signal, pre), ...caps.gateOption() },
      ...(spill ? { spill } : {}),
      ...caps.loopOption(),
    };
  };
  const info = (): SubagentInfo => subagentInfo(sub?.catalog, deps.store, id, log.isStored);
  const changes = frameChanges({ frames, compactor, log, providerFor: deps.providerFor });
  return {
    id,
    state,
    loadNotes,
    log,
    files,
    snapshots,
    caps,
    tools,
    direct,
    dry,
    frames,
    compactor,
    changes,
    edits,
    gate,
    spill,
    recall,
    loopOptions,
    subagentInfo: info,
  };
}

/** What the capabilities reach of the session at run time (the Task tool's runner, the Skill tool's turn): parts built after they are opened. */
interface BoundParts extends TurnParts {
  gate: ToolGate;
  frames: TurnFrames;
  /** The session's tools (a sub-agent's are chosen from them). */
  tools: readonly AnyTool[];
}

/** A value bound once, after the parts that read it are built; reading it earlier is a wiring error. */
function late<T>(): { get: () => T; set: (value: T) => void } {
  let value: { v: T } | undefined;
  return {
    get: () => {
      if (!value) throw new Error('the session is still being assembled');
      return value.v;
    },
    set: (v) => {
      value = { v };
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
function loopSettings(
  config: SessionDeps['config'],
  cacheKey: string,
): Pick<LoopOptions, 'model' | 'maxSteps' | 'patience' | 'maxOutputRecoveries' | 'cwd' | 'request'> {
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
