import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Message, ToolResultBlock } from '../../src/llm/messages.js';
import { persistReads, rebuildTracker } from '../../src/session/trackerRebuild.js';
import { openStore, type Store } from '../../src/store/index.js';
import { FileTracker } from '../../src/tools/fileTracker.js';
import { tempDir, toolPair } from '../store/helpers.js';

describe('the edit tracker rebuilt on resume from the visible history', () => {
  let tmp: ReturnType<typeof tempDir>;
  let store: Store;
  let file: string;
  beforeEach(() => {
    tmp = tempDir();
    store = openStore(join(tmp.dir, 'agent.db'));
    store.createSession({ id: 's1', cwd: tmp.dir, provider: 'anthropic', model: 'm' });
    file = join(tmp.dir, 'a.txt');
    writeFileSync(file, 'hello\n');
  });
  afterEach(() => {
    store.close();
    tmp.cleanup();
  });

  /** A read by a tool call in the first process; returns the visible history it leaves. */
  function readInFirstProcess(): Message[] {
    const pair = toolPair('FileRead', { path: file }, '1\thello');
    const useId = (pair[1].blocks[0] as ToolResultBlock).toolUseId;
    new FileTracker(persistReads(store, 's1', true)).forCall(useId).record(file, statSync(file));
    return pair;
  }

  it('an unchanged file is fresh without a second read', () => {
    const history = readInFirstProcess();
    const resumed = new FileTracker();
    expect(rebuildTracker(store, 's1', history, resumed)).toBe(1);
    expect(resumed.check(file, statSync(file))).toEqual({ kind: 'fresh' });
  });

  it('a file changed since is stale', () => {
    const history = readInFirstProcess();
    writeFileSync(file, 'hello, changed\n');
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    const resumed = new FileTracker();
    rebuildTracker(store, 's1', history, resumed);
    expect(resumed.check(file, statSync(file))).toEqual({ kind: 'stale' });
  });

  it('a read whose result was cleared or compacted away needs a fresh read', () => {
    const [call, result] = readInFirstProcess() as [Message, Message];
    const cleared: Message = {
      ...result,
      blocks: result.blocks.map((b) => (b.type === 'tool_result' ? { ...b, content: '[cleared]', cleared: { archiveId: 'tx1', originalTokens: 10 } } : b)),
    };
    const resumed = new FileTracker();
    rebuildTracker(store, 's1', [call, cleared], resumed);
    expect(resumed.check(file, statSync(file))).toEqual({ kind: 'unread' });
    rebuildTracker(store, 's1', [], resumed);
    expect(resumed.check(file, statSync(file))).toEqual({ kind: 'unread' });
  });

  it('a fork keeps the reads of the history it copies', () => {
    const history = readInFirstProcess();
    store.forkSession('s1', { id: 's2', cwd: tmp.dir, provider: 'anthropic', model: 'm' });
    const resumed = new FileTracker();
    rebuildTracker(store, 's2', history, resumed);
    expect(resumed.check(file, statSync(file))).toEqual({ kind: 'fresh' });
  });

  it('the reads of a new session wait for its row, and are all saved once it is stored', () => {
    const other = join(tmp.dir, 'b.txt');
    writeFileSync(other, 'world\n');
    const reads = persistReads(store, 's3', false);
    const tracker = new FileTracker(reads);
    const history: Message[] = [];
    for (const path of [file, other]) {
      const pair = toolPair('FileRead', { path }, '1\tline');
      tracker.forCall((pair[1].blocks[0] as ToolResultBlock).toolUseId).record(path, statSync(path));
      history.push(...pair);
    }
    // the row is written with the session's first message; then the waiting reads are saved
    store.createSession({ id: 's3', cwd: tmp.dir, provider: 'anthropic', model: 'm' });
    reads.flush();
    const resumed = new FileTracker();
    // mutation: `waiting.splice(0)` made `splice(1)`: the first read is never saved
    expect(rebuildTracker(store, 's3', history, resumed)).toBe(2);
    expect(resumed.check(file, statSync(file))).toEqual({ kind: 'fresh' });
    expect(resumed.check(other, statSync(other))).toEqual({ kind: 'fresh' });
    // once stored, a read is saved at once (mutation: flush() not marking the row written keeps it waiting)
    const third = join(tmp.dir, 'c.txt');
    writeFileSync(third, 'again\n');
    const pair = toolPair('FileRead', { path: third }, '1\tagain');
    tracker.forCall((pair[1].blocks[0] as ToolResultBlock).toolUseId).record(third, statSync(third));
    expect(rebuildTracker(store, 's3', [...history, ...pair], new FileTracker())).toBe(3);
  });

  it("a file the person @attached counts while their prompt is in view; the same id on the model's message does not", () => {
    const prompt: Message = {
      id: 'u_at',
      role: 'user',
      kind: 'normal',
      createdAt: 1,
      blocks: [
        { type: 'text', text: 'look at @a.txt' },
        {
          type: 'text',
          text: '[Attached by the user with @a.txt: read with FileRead]\n1\thello',
          origin: { kind: 'attachment', label: 'a.txt: read with FileRead' },
        },
      ],
    };
    new FileTracker(persistReads(store, 's1', true)).forCall('u_at').record(file, statSync(file));
    const resumed = new FileTracker();
    expect(rebuildTracker(store, 's1', [prompt], resumed)).toBe(1);
    expect(resumed.check(file, statSync(file))).toEqual({ kind: 'fresh' });
    expect(rebuildTracker(store, 's1', [{ ...prompt, role: 'assistant' }], new FileTracker())).toBe(0);
  });
});
