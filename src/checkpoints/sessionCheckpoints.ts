// One session's checkpoints: a snapshot of the project at each turn's start and end (the
// capability's turnBoundary hook), recorded in the shadow store's sessions/<id>.jsonl; going
// back to before a turn, and taking a rewind back, with the outside-change check (what changed
// since the agent last left the project is someone else's work: reported, never overwritten
// unless forced). A snapshot that fails records why, and the person is told once per reason.
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ShadowRepo, tooBroad } from './git.js';
import { findProject } from './project.js';
import { pruneStore } from './prune.js';
import { lastBoundary, parseRecords, treeBefore, undoable, type CheckpointRecord } from './records.js';
import { SessionTree } from './tree.js';
import type { OutsideChanges, RewindKind, TreeChange, TreeCheckpoints } from '../capability/checkpoints.js';

export interface CheckpointSettings {
  maxFiles: number;
  maxStoreMB: number;
  keepDays: number;
}

export class SessionCheckpoints implements TreeCheckpoints {
  readonly root: string;
  private readonly repo: ShadowRepo;
  private readonly tree: SessionTree;
  private readonly file: string;
  private opened: Promise<string | undefined> | undefined;
  private readonly told = new Set<string>();
  private cache: { stamp: string; records: CheckpointRecord[] } | undefined;
  /** The turn running, and its snapshot before its first change once asked for. */
  private turn: { id: string; before?: Promise<void> } | undefined;

  constructor(
    private readonly sessionId: string,
    cwd: string,
    dataDir: string,
    private readonly settings: CheckpointSettings,
    private readonly notice: (text: string) => void,
  ) {
    const project = findProject(cwd);
    this.root = project.root;
    this.repo = new ShadowRepo(dataDir, project.root, project.exclude);
    this.tree = new SessionTree(this.repo, sessionId, settings.maxFiles);
    this.file = recordsFile(this.repo.gitDir, sessionId);
  }

  /** A forked session starts with the records (and the tree chain) of the session it was copied from. */
  adopt(from: string): void {
    if (from === this.sessionId || existsSync(this.file)) return;
    const source = recordsFile(this.repo.gitDir, from);
    if (!existsSync(source)) return;
    mkdirSync(join(this.repo.gitDir, 'sessions'), { recursive: true });
    copyFileSync(source, this.file);
    const ref = (id: string): string => join(this.repo.gitDir, 'refs', 'sessions', id.replace(/[^\w.-]/g, '_'));
    if (existsSync(ref(from))) copyFileSync(ref(from), ref(this.sessionId));
  }

  /**
   * A turn starts: recorded without a snapshot (no git), which is taken before the turn's first
   * change (`changing`), or at once when `eager` (the person's hooks run commands around any call
   * and at the turn's end). Never throws.
   */
  async turnStarted(turnId: string, eager = false): Promise<void> {
    this.turn = { id: turnId };
    this.append({ edge: 'start', turn: turnId, at: Date.now() });
    if (eager) await this.changing();
  }

  /** Something in the turn may change files: the project before its first change, once a turn. Never throws. */
  changing(): Promise<void> {
    const t = this.turn;
    if (!t) return Promise.resolve();
    t.before ??= this.boundary('before', t.id);
    return t.before;
  }

  /** The turn ended: the project after it, when it was snapshotted before a change (a turn that changed nothing takes none). Never throws. */
  async turnEnded(turnId: string): Promise<void> {
    const t = this.turn;
    this.turn = undefined;
    if (t?.id !== turnId || !t.before) return;
    await t.before;
    await this.boundary('after', turnId);
  }

  /** The project as it is now, recorded under the turn's start or end. Never throws. */
  async boundary(edge: 'before' | 'after', turnId: string): Promise<void> {
    const at = Date.now();
    try {
      const off = await this.open();
      if (off) return this.append({ edge, turn: turnId, at, failed: off });
      this.append({ edge, turn: turnId, at, tree: await this.tree.snapshot() });
    } catch (e) {
      this.append({ edge, turn: turnId, at, failed: (e as Error).message });
    }
  }

  /** Stops watching the project (the session closes). */
  close(): void {
    this.tree.close();
  }

  before(turnId: string): { ok: true } | { ok: false; missing: string } {
    const found = this.treeBefore(this.records(), turnId);
    return 'missing' in found ? { ok: false, missing: found.missing } : { ok: true };
  }

  async rewind(turnId: string, what: RewindKind, force: boolean): Promise<{ changes: TreeChange[] } | OutsideChanges | { missing: string }> {
    const records = this.records();
    const target = this.treeBefore(records, turnId);
    if ('missing' in target) return target;
    if ('unchanged' in target) {
      // nothing was changed since the turn started: no file to put back (an undo of it changes none either)
      this.append({ edge: 'rewind', turn: turnId, what, at: Date.now() });
      return { changes: [] };
    }
    const off = await this.open();
    if (off) return { missing: off };
    const now = await this.tree.snapshot();
    const outside = await this.outside(records, now);
    if (outside.length > 0 && !force) return { outside };
    const changes = await this.tree.restore(now, target.tree);
    this.append({ edge: 'rewind', turn: turnId, what, at: Date.now(), from: now, tree: await this.tree.snapshot() });
    return { changes };
  }

  async conversationRewound(turnId: string): Promise<void> {
    this.append({ edge: 'rewind', turn: turnId, what: 'conversation', at: Date.now() });
  }

  lastRewind(): { what: RewindKind } | undefined {
    const r = undoable(this.records());
    return r ? { what: r.what } : undefined;
  }

  async undo(force: boolean): Promise<{ changes: TreeChange[] } | OutsideChanges> {
    const records = this.records();
    const last = undoable(records);
    if (!last?.from) {
      this.append({ edge: 'undo', at: Date.now() });
      return { changes: [] };
    }
    const off = await this.open();
    if (off) throw new Error(`the checkpoints cannot be read: ${off}`);
    const now = await this.tree.snapshot();
    const outside = await this.outside(records, now);
    if (outside.length > 0 && !force) return { outside };
    const changes = await this.tree.restore(now, last.from);
    this.append({ edge: 'undo', at: Date.now(), from: now, tree: await this.tree.snapshot() });
    return { changes };
  }

  async uncovered(paths: readonly string[]): Promise<string[]> {
    if (await this.open()) return [...paths];
    return this.tree.uncovered(paths);
  }

  /** The tree before a turn, or why there is none: a turn whose checkpoints the store's pruning dropped says so. */
  private treeBefore(records: readonly CheckpointRecord[], turnId: string): ReturnType<typeof treeBefore> {
    const found = treeBefore(records, turnId);
    if (!('missing' in found) || records.some((r) => r.edge === 'before' && r.turn === turnId)) return found;
    try {
      return { missing: readFileSync(this.file.replace(/\.jsonl$/, '.pruned'), 'utf8').trim() };
    } catch {
      return found;
    }
  }

  /** The files changed since the agent last left the project (absolute). */
  private async outside(records: readonly CheckpointRecord[], now: string): Promise<string[]> {
    const last = lastBoundary(records);
    return last ? (await this.tree.changed(last, now)).map((p) => join(this.root, p)) : [];
  }

  /** Opens the store once (and prunes it); a reason when the project cannot have checkpoints. */
  private open(): Promise<string | undefined> {
    this.opened ??= (async () => {
      const broad = tooBroad(this.root);
      if (broad) return `${broad}, too broad to snapshot`;
      try {
        await this.repo.open();
        return await pruneStore(this.repo, this.sessionId, this.settings);
      } catch (e) {
        return (e as Error).message;
      }
    })();
    return this.opened;
  }

  /** The records, parsed again only when the file changed (the /rewind list asks once per turn). */
  private records(): CheckpointRecord[] {
    try {
      const st = statSync(this.file);
      const stamp = `${st.mtimeMs}:${st.size}`;
      if (this.cache?.stamp !== stamp) this.cache = { stamp, records: parseRecords(readFileSync(this.file, 'utf8')) };
      return this.cache.records;
    } catch {
      return [];
    }
  }

  private append(r: CheckpointRecord): void {
    if ('failed' in r && r.failed && !this.told.has(r.failed)) {
      this.told.add(r.failed);
      this.notice(`No checkpoint of the project at this turn (${r.failed}): /rewind can restore only what Edit and Write changed in it.`);
    }
    try {
      mkdirSync(join(this.repo.gitDir, 'sessions'), { recursive: true });
      appendFileSync(this.file, `${JSON.stringify(r)}\n`);
    } catch (e) {
      const why = `the checkpoint record could not be written: ${(e as Error).message}`;
      if (!this.told.has(why)) {
        this.told.add(why);
        this.notice(why);
      }
    }
  }
}

function recordsFile(gitDir: string, sessionId: string): string {
  return join(gitDir, 'sessions', `${sessionId.replace(/[^\w.-]/g, '_')}.jsonl`);
}
