import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ShadowRepo } from '../../src/checkpoints/git.js';
import { checkpointLines, sessionRecords, storeSizes } from '../../src/checkpoints/listing.js';
import { storeBytes } from '../../src/checkpoints/prune.js';
import type { CheckpointRecord } from '../../src/checkpoints/records.js';
import { SessionTree } from '../../src/checkpoints/tree.js';
import { tempDir } from '../tempDirs.js';

// What `agent sessions show` and `agent doctor` say of the checkpoints (src/checkpoints/listing.ts),
// read from the shadow stores' files.

describe('the checkpoints listing', () => {
  it("doctor's store sizes: each repository's project and bytes, not a store that only noted turns, nor another file", async () => {
    const root = tempDir('agent-listing-');
    const data = join(root, 'data');
    const project = join(root, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'a.txt'), 'a\n');
    expect(await storeSizes(data)).toEqual([]);
    const repo = new ShadowRepo(data, project, undefined);
    await repo.open();
    const tree = new SessionTree(repo, 's_1', 100);
    await tree.snapshot();
    tree.close();
    // a store whose sessions changed nothing yet (no HEAD), and a stray file
    mkdirSync(join(data, 'checkpoints', 'lazy.git', 'sessions'), { recursive: true });
    writeFileSync(join(data, 'checkpoints', 'notes.git.txt'), '');
    const bytes = await storeBytes(repo.gitDir);
    expect(bytes).toBeGreaterThan(0);
    expect(await storeSizes(data)).toEqual([{ project, bytes }]);
    // a store git cannot read (a HEAD and nothing else; a hash's hex name sorts before it), with no project file: unknown and empty
    writeFileSync(join(data, 'checkpoints', 'lazy.git', 'HEAD'), 'ref: refs/heads/main\n');
    expect(await storeSizes(data)).toEqual([
      { project, bytes },
      { project: '(unknown project)', bytes: 0 },
    ]);
  });

  it("sessions show's lines: a turn's start, its snapshots or why none, a rewind with its trees, an undo", () => {
    const at = Date.UTC(2026, 11, 7, 6, 30, 5);
    const records: CheckpointRecord[] = [
      { edge: 'start', turn: 't1', at },
      { edge: 'before', turn: 't1', at, tree: 'aaaaaaaaaabbbb' },
      { edge: 'after', turn: 't1', at, failed: 'over checkpoints.maxFiles' },
      { edge: 'rewind', turn: 't1', what: 'code', at, from: 'ccccccccccdddd', tree: 'eeeeeeeeeeffff' },
      { edge: 'rewind', turn: 't1', what: 'conversation', at },
      { edge: 'undo', at, tree: 'ccccccccccdddd' },
      { edge: 'undo', at },
    ];
    expect(checkpointLines(records, (id) => `turn ${id.slice(1)}`)).toEqual([
      '- 2026-12-07 06:30:05  start turn 1',
      '- 2026-12-07 06:30:05  before turn 1  tree aaaaaaaaaa',
      '- 2026-12-07 06:30:05  after turn 1  not snapshotted: over checkpoints.maxFiles',
      '- 2026-12-07 06:30:05  /rewind code to before turn 1  from tree cccccccccc to tree eeeeeeeeee',
      '- 2026-12-07 06:30:05  /rewind conversation to before turn 1',
      '- 2026-12-07 06:30:05  /rewind undo  back to tree cccccccccc',
      '- 2026-12-07 06:30:05  /rewind undo',
    ]);
  });

  it("a session's records are read from its file under the store (its id made a file name), none when there are none", () => {
    const root = tempDir('agent-listing-records-');
    const data = join(root, 'data');
    const project = join(root, 'project');
    mkdirSync(project);
    expect(sessionRecords(data, project, 'a/b')).toEqual([]);
    const repo = new ShadowRepo(data, project, undefined);
    mkdirSync(join(repo.gitDir, 'sessions'), { recursive: true });
    writeFileSync(join(repo.gitDir, 'sessions', 'a_b.jsonl'), '{"edge":"start","turn":"t1","at":1}\n');
    expect(sessionRecords(data, project, 'a/b')).toEqual([{ edge: 'start', turn: 't1', at: 1 }]);
  });
});
