import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { LoopOptions } from '../../src/agent/host.js';
import { runTools } from '../../src/agent/runTools.js';
import type { CapabilityHost } from '../../src/capability/capability.js';
import { checkpointsCapability } from '../../src/checkpoints/capability.js';
import { ShadowRepo } from '../../src/checkpoints/git.js';
import { findProject } from '../../src/checkpoints/project.js';
import { pruneStore } from '../../src/checkpoints/prune.js';
import { SessionCheckpoints } from '../../src/checkpoints/sessionCheckpoints.js';
import { SessionTree } from '../../src/checkpoints/tree.js';
import { sessionRecords } from '../../src/checkpoints/listing.js';
import type { ToolUseBlock } from '../../src/llm/messages.js';
import type { ToolKind, ToolTraits } from '../../src/tools/kinds.js';
import type { AnyTool } from '../../src/tools/types.js';
import { tempDir } from '../tempDirs.js';
import { seedRepository } from './repository.js';

// Lazy checkpoints (issue 48's -p round trip, issue 50's forks): a turn is noted at its start
// without git; the project is snapshotted before the turn's first call that may change files
// (an edit, a command, an MCP tool, a sub-agent), once, and after such a turn; a turn that ran
// none takes no snapshot, and /rewind to it restores what the next snapshot before a change held.

const settings = { maxFiles: 1000, maxStoreMB: 2048, keepDays: 30 };

function project() {
  const root = tempDir('agent-lazy-cp-');
  const dir = join(root, 'project');
  mkdirSync(dir);
  seedRepository(dir, { ignore: 'build/\n', files: { 'a.txt': 'one\n' }, stash: ['a.txt', 'stashed\n'] });
  return { dir, data: join(root, 'data') };
}

/** The shadow store, naming each process it starts (a git step, or a shell of them). */
class ForkCounting extends ShadowRepo {
  readonly forks: string[] = [];
  override run(...args: Parameters<ShadowRepo['run']>): ReturnType<ShadowRepo['run']> {
    this.forks.push(args[0][0]!);
    return super.run(...args);
  }
  override script(...args: Parameters<ShadowRepo['script']>): ReturnType<ShadowRepo['script']> {
    this.forks.push(`sh: ${args[1].join(', ')}`);
    return super.script(...args);
  }
}

const host = (sessionId: string): CapabilityHost => ({ sessionId, resumed: false, turn: { notice: () => {} } }) as unknown as CapabilityHost;

/** The shadow store's folder (made or not), and whether git made it a repository. */
function store(data: string): { initialised: boolean } {
  const dir = join(data, 'checkpoints');
  const git = existsSync(dir) ? readdirSync(dir).find((f) => f.endsWith('.git')) : undefined;
  return { initialised: git !== undefined && existsSync(join(dir, git, 'HEAD')) };
}

describe('lazy checkpoints', () => {
  it('a turn that changes nothing runs no git and makes no store; the first change of a turn is preceded by one snapshot, its end by another', async () => {
    const { dir, data } = project();
    const cp = checkpointsCapability(dir, data, settings).open(host('s_lazy'));
    await cp.hooks!.turnBoundary!('before', 't1');
    await cp.hooks!.turnBoundary!('after', 't1');
    // mutation: turnStarted snapshotting at once (as before) makes the store
    expect(store(data)).toEqual({ initialised: false });
    expect(cp.checkpoints!.before('t1')).toEqual({ ok: true });

    await cp.hooks!.turnBoundary!('before', 't2');
    await Promise.all([cp.hooks!.beforeChange!(), cp.hooks!.beforeChange!()]);
    writeFileSync(join(dir, 'a.txt'), 'two\n');
    await cp.hooks!.beforeChange!();
    writeFileSync(join(dir, 'b.txt'), 'new\n');
    await cp.hooks!.turnBoundary!('after', 't2');
    expect(store(data)).toEqual({ initialised: true });
    // one snapshot before the first change, whatever asked for it how often; one after
    expect(sessionRecords(data, dir, 's_lazy').map((r) => `${r.edge} ${'turn' in r ? r.turn : ''}`)).toEqual(['start t1', 'start t2', 'before t2', 'after t2']);

    // turn 3 asks a question; /rewind 3 code has nothing to put back, /rewind 1 code goes back to before turn 2's changes
    await cp.hooks!.turnBoundary!('before', 't3');
    await cp.hooks!.turnBoundary!('after', 't3');
    expect(await cp.checkpoints!.rewind('t3', 'code', false)).toEqual({ changes: [] });
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('two\n');
    const back = await cp.checkpoints!.rewind('t1', 'code', false);
    expect('changes' in back && back.changes.map((c) => `${c.action} ${c.path.slice(dir.length + 1)}`).sort()).toEqual(['removed b.txt', 'restored a.txt']);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('one\n');
    // the undo takes back the rewind to turn 1 (the last one), and then the empty one to turn 3, which changes nothing
    expect('changes' in (await cp.checkpoints!.undo(false))).toBe(true);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('two\n');
    expect(cp.checkpoints!.lastRewind()).toEqual({ what: 'code' });
    expect(await cp.checkpoints!.undo(false)).toEqual({ changes: [] });
    // mutation: an undo of a rewind that changed no file not recorded leaves that rewind to undo again
    expect(cp.checkpoints!.lastRewind()).toBeUndefined();
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('two\n');
    expect(existsSync(join(dir, 'b.txt'))).toBe(true);
    // a quiet turn after an undo: the tree before it is the one the undo left (its `from` is that of the next rewind)
    await cp.hooks!.turnBoundary!('before', 't4');
    await cp.hooks!.turnBoundary!('after', 't4');
    await cp.hooks!.turnBoundary!('before', 't5');
    await cp.hooks!.beforeChange!();
    writeFileSync(join(dir, 'a.txt'), 'five\n');
    await cp.hooks!.turnBoundary!('after', 't5');
    const four = await cp.checkpoints!.rewind('t4', 'code', false);
    expect('changes' in four && four.changes.map((c) => `${c.action} ${c.path.slice(dir.length + 1)}`)).toEqual(['restored a.txt']);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('two\n');
    cp.close?.();
  });

  it('a quiet turn before a change: a file the person changed between them counts as the project before it, not as outside work', async () => {
    const { dir, data } = project();
    const cp = checkpointsCapability(dir, data, settings).open(host('s_between'));
    await cp.hooks!.turnBoundary!('before', 't0');
    await cp.hooks!.beforeChange!();
    writeFileSync(join(dir, 'zero.txt'), 'agent\n');
    await cp.hooks!.turnBoundary!('after', 't0');
    await cp.hooks!.turnBoundary!('before', 't1');
    await cp.hooks!.turnBoundary!('after', 't1');
    writeFileSync(join(dir, 'mine.txt'), 'the person wrote this\n');
    await cp.hooks!.turnBoundary!('before', 't2');
    await cp.hooks!.beforeChange!();
    writeFileSync(join(dir, 'a.txt'), 'agent\n');
    await cp.hooks!.turnBoundary!('after', 't2');
    const back = await cp.checkpoints!.rewind('t1', 'code', false);
    expect('changes' in back && back.changes.map((c) => c.path.slice(dir.length + 1))).toEqual(['a.txt']);
    expect(readFileSync(join(dir, 'mine.txt'), 'utf8')).toBe('the person wrote this\n');
    expect(readFileSync(join(dir, 'zero.txt'), 'utf8')).toBe('agent\n');
    cp.close?.();
  });

  it('with the person hooks configured (eager), the turn is snapshotted at its start', async () => {
    const { dir, data } = project();
    const cp = checkpointsCapability(dir, data, settings, true).open(host('s_eager'));
    await cp.hooks!.turnBoundary!('before', 't1');
    expect(store(data)).toEqual({ initialised: true });
    // the start's snapshot is taken when the boundary's promise settles (mutation: not awaited, it lands later)
    expect(sessionRecords(data, dir, 's_eager').map((r) => r.edge)).toEqual(['start', 'before']);
    await cp.hooks!.turnBoundary!('after', 't1');
    expect(sessionRecords(data, dir, 's_eager').map((r) => r.edge)).toEqual(['start', 'before', 'after']);
    cp.close?.();
  });
});

describe("a turn's end", () => {
  it('waits for the snapshot before its first change, still being taken, before it takes its own', async () => {
    const { dir, data } = project();
    const cp = new SessionCheckpoints('s_wait', dir, data, settings, () => {});
    // the first snapshot held until released; each one's start and end logged
    const log: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    const real = SessionTree.prototype.snapshot;
    const spy = vi.spyOn(SessionTree.prototype, 'snapshot').mockImplementation(async function (this: SessionTree) {
      const n = log.filter((l) => l.startsWith('start')).length + 1;
      log.push(`start ${n}`);
      if (n === 1) await held;
      const tree = await real.call(this);
      log.push(`end ${n}`);
      return tree;
    });
    try {
      await cp.turnStarted('t1');
      const before = cp.changing();
      const ended = cp.turnEnded('t1');
      // (a turn of the loop: an end that did not wait would have started its snapshot by now)
      await new Promise((r) => setImmediate(r));
      release();
      await Promise.all([before, ended]);
    } finally {
      spy.mockRestore();
      cp.close();
    }
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2']);
    expect(sessionRecords(data, dir, 's_wait').map((r) => `${r.edge} ${'tree' in r && r.tree ? 'tree' : 'none'}`)).toEqual([
      'start none',
      'before tree',
      'after tree',
    ]);
  });
});

describe('a snapshot forks this process at most twice', () => {
  it('the folders listed (with the first count) in one shell, then diff-files, add, write-tree, commit-tree and the store size in another', async () => {
    const { dir, data } = project();
    const p = findProject(dir);
    const repo = new ForkCounting(data, p.root, p.exclude);
    // the store is written without git, and weighed without it while it holds nothing: with no git
    // to be found, both still work (mutations: git init --bare in open(), count-objects on the new store)
    const path = process.env['PATH'];
    process.env['PATH'] = '/nonexistent';
    try {
      await repo.open();
      expect(await pruneStore(repo, 's_forks', settings)).toBeUndefined();
    } finally {
      process.env['PATH'] = path;
    }
    expect(repo.forks).toEqual([]);
    const tree = new SessionTree(repo, 's_forks', 1000);
    const first = await tree.snapshot();
    expect(repo.forks).toEqual(['sh: ls-files', 'sh: add, write-tree, commit-tree']);
    expect(readFileSync(join(repo.gitDir, 'size'), 'utf8')).toMatch(/^size-pack: \d+$/m);
    // a file changed in place (no folder moved): one shell, which finds it with diff-files and snapshots it
    repo.forks.length = 0;
    writeFileSync(join(dir, 'a.txt'), 'changed\n');
    const changed = await tree.snapshot();
    expect(changed).not.toBe(first);
    expect(repo.forks).toEqual(['sh: add, write-tree, commit-tree']);
    // touched but the same: diff-files says so in that shell, and the tree is the last one
    repo.forks.length = 0;
    writeFileSync(join(dir, 'a.txt'), 'changed\n');
    expect(await tree.snapshot()).toBe(changed);
    expect(repo.forks).toEqual(['sh: add, write-tree, commit-tree']);
    // the chain's head names the last tree
    expect(
      readFileSync(join(repo.gitDir, 'refs', 'sessions', 's_forks'), 'utf8')
        .trim()
        .split(' ')[1],
    ).toBe(changed);
    tree.close();
  });
});

describe('runTools and the checkpoint before a change', () => {
  const tool = (name: string, kind: ToolKind, log: string[], traits?: Partial<ToolTraits>): AnyTool =>
    ({
      name,
      kind,
      ...(traits ? { traits } : {}),
      parse: (i: unknown) => i,
      summarize: () => name,
      run: async () => (log.push(`run ${name}`), { content: 'ok', isError: false }),
    }) as unknown as AnyTool;

  it('waits for it before the hook, the approval and the run of a call that may change files (edit, command, MCP, sub-agent), never for a read', async () => {
    const log: string[] = [];
    const tools = [
      tool('FileRead', 'read', log),
      tool('Edit', 'edit', log),
      tool('Bash', 'execute', log),
      tool('mcp__x__get', 'mcp', log, { readOnly: true, mutating: false }),
      tool('mcp__x__put', 'mcp', log),
      tool('Task', 'agent', log),
    ];
    const opts = {
      tools,
      gate: { authorize: async () => (log.push('authorize'), { ok: true }), beforeChange: async () => void log.push('snapshot') },
      hooks: {
        beforeTool: async () => (log.push('hook'), {}),
        afterTool: async () => undefined,
        onStop: async () => undefined,
      },
      cwd: '/',
    } as unknown as LoopOptions;
    for (const t of tools) {
      log.length = 0;
      const uses: ToolUseBlock[] = [{ type: 'tool_use', id: 'u1', name: t.name, input: {} }];
      await runTools(uses, new Map(tools.map((x) => [x.name, x])), opts, new AbortController().signal, () => {});
      log.push(t.name);
      expect(log.join(', ')).toBe(
        ['FileRead', 'mcp__x__get'].includes(t.name) ? `hook, authorize, run ${t.name}, ${t.name}` : `snapshot, hook, authorize, run ${t.name}, ${t.name}`,
      );
    }
  });
});

// Mutations checked: runTools asking for the snapshot after the approval (the order fails); a
// sub-agent's call not counted (Task runs without it); treeBefore taking the quiet turn's tree
// from the previous 'after' (rewinding to t1 in the second test removes mine.txt).
