import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { runTools } from '../../src/agent/runTools.js';
import type { LoopOptions } from '../../src/agent/host.js';
import { archiveRecall, archiveSpill } from '../../src/session/recall.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createRecallTool } from '../../src/tools/recall.js';
import { createTools } from '../../src/tools/registry.js';
import { FullOutputBuffer, fullOutputOf, shouldSpill, spillPreview, spillThreshold } from '../../src/tools/spill.js';
import type { AnyTool, ToolContext } from '../../src/tools/types.js';
import { tempDir } from '../store/helpers.js';

const sixThousand = Array.from({ length: 6_000 }, (_, i) => `line ${i + 1}: ${i % 1000 === 999 ? 'ERROR boom' : 'ok'}`).join('\n');

describe('the spill rule', () => {
  it('spills above the threshold only, never Recall, never when off', () => {
    expect(shouldSpill({ spills: true, chars: 8_001, threshold: 2_000 })).toBe(true);
    expect(shouldSpill({ spills: true, chars: 8_000, threshold: 2_000 })).toBe(false);
    expect(shouldSpill({ spills: false, chars: 1e6, threshold: 2_000 })).toBe(false);
    expect(shouldSpill({ spills: true, chars: 1e6, threshold: 0 })).toBe(false);
  });

  it('FileRead spills at four times the threshold (a file read whole is needed whole); a tool of its own in spillTokensByTool, and 0, win', () => {
    const output = { spillTokens: 2_000, spillTokensByTool: { Grep: 500 } };
    expect(spillThreshold('FileRead', output)).toBe(8_000);
    expect(spillThreshold('Bash', output)).toBe(2_000);
    expect(spillThreshold('Grep', output)).toBe(500);
    expect(spillThreshold('FileRead', { spillTokens: 2_000, spillTokensByTool: { FileRead: 1_000 } })).toBe(1_000);
    expect(spillThreshold('FileRead', { spillTokens: 0, spillTokensByTool: {} })).toBe(0);
    // a 520-line source file (~5,000 tokens) is read whole; at the general threshold it spilled
    expect(shouldSpill({ spills: true, chars: 20_000, threshold: spillThreshold('FileRead', output) })).toBe(false);
    // fails with FILE_READ_SPILL_FACTOR 1, or with the per-tool value read after the factor
  });

  it('previews head and tail with the handle, sizes and the last line; byte-stable', () => {
    const p = spillPreview(fullOutputOf(sixThousand), 'o12');
    expect(p.split('\n')[0]).toMatch(/^\[output o12: 6,000 lines, \d+ KB; lines 1–40 and 5,961–6,000 shown; Recall id="o12"/);
    expect(p).toContain('line 1: ok');
    expect(p.endsWith('line 6000: ERROR boom')).toBe(true);
    expect(p).toContain('[5,920 lines not shown]');
    expect(p.length).toBeLessThan(4_500);
    expect(spillPreview(fullOutputOf(sixThousand), 'o12')).toBe(p);
  });

  it('keeps at most the cap and still counts the whole', () => {
    const b = new FullOutputBuffer(1_000);
    for (let i = 0; i < 100; i++) b.push('x'.repeat(99) + '\n');
    const r = b.result();
    expect(r.text.length).toBe(1_000);
    expect(r.totalChars).toBe(10_000);
    expect(r.totalLines).toBe(100);
    expect(spillPreview(r, 'o1')).toMatch(/Only the first .* were archived \(cap\); 9,000 characters/);
  });
});

describe('spilling through the result path, read back by Recall', () => {
  let tmp: ReturnType<typeof tempDir>;
  let store: Store;
  beforeEach(() => {
    tmp = tempDir();
    store = openStore(join(tmp.dir, 'agent.db'));
    store.createSession({ id: 's1', cwd: '/repo', provider: 'anthropic', model: 'm' });
  });
  afterEach(() => {
    store.close();
    tmp.cleanup();
  });

  const big: AnyTool = {
    name: 'Big',
    description: 'prints a lot',
    inputSchema: { type: 'object', properties: {} },
    kind: 'read',
    parse: (i) => i,
    summarize: () => 'seq 6000',
    run: async () => ({ content: `${sixThousand}\nsecret sk-ant-api03-${'a'.repeat(40)}`, isError: false }),
  };

  async function spillOnce(): Promise<string> {
    const opts = {
      cwd: '/repo',
      gate: { authorize: async () => ({ ok: true }) },
      spill: archiveSpill(
        store,
        () => 's1',
        () => ({ spillTokens: 2_000, spillTokensByTool: {} }),
      ),
    } as unknown as LoopOptions;
    const { results } = await runTools(
      [{ type: 'tool_use', id: 'tu1', name: 'Big', input: {} }],
      new Map([['Big', big]]),
      opts,
      new AbortController().signal,
      () => undefined,
    );
    return results[0]!.content;
  }

  const recall = (sessionId: string) => {
    const tool = createRecallTool({}, { recall: archiveRecall(store, sessionId, () => false) }) as AnyTool;
    const ctx: ToolContext = { cwd: '/repo', signal: new AbortController().signal };
    return (input: unknown) => tool.run(tool.parse(input), ctx);
  };

  it('archives the whole output (redacted), gives a preview, and Recall reads ranges and patterns exactly', async () => {
    const preview = await spillOnce();
    expect(preview).toMatch(/^\[output o1: 6,001 lines/);
    expect(store.spilled.get('s1', 'o1')!.content).toContain('line 3001: ok');
    expect(store.spilled.get('s1', 'o1')!.content).not.toContain('sk-ant-api03');
    const read = recall('s1');
    const range = await read({ id: 'o1', offset: 2500, limit: 3 });
    expect(range.content.split('\n').slice(0, 4)).toEqual([
      expect.stringContaining('lines 2,500-2,502 of 6,001'),
      'line 2500: ok',
      'line 2501: ok',
      'line 2502: ok',
    ]);
    const grep = await read({ id: 'o1', pattern: 'ERROR', context: 0 });
    expect(
      grep.content
        .split('\n')
        .slice(1)
        .filter((l) => l !== '--'),
    ).toEqual([1000, 2000, 3000, 4000, 5000, 6000].map((n) => `${String(n).padStart(4)}: line ${n}: ERROR boom`));
    expect(store.searchArchive('boom', { sessionId: 's1', limit: 5, offset: 0 }).map((h) => h.id)).toEqual(['o1']);
  });

  it('archives all of a Bash output, not the 30,000 characters of head and tail the tool keeps', async () => {
    const bash = createTools({ bash: { timeoutMs: 60_000, maxTimeoutMs: 60_000, maxOutputChars: 30_000 } }).find((t) => t.name === 'Bash')!;
    const opts = {
      cwd: tmp.dir,
      gate: { authorize: async () => ({ ok: true }) },
      spill: archiveSpill(
        store,
        () => 's1',
        () => ({ spillTokens: 2_000, spillTokensByTool: {} }),
      ),
    } as unknown as LoopOptions;
    const { results } = await runTools(
      [{ type: 'tool_use', id: 'tu9', name: 'Bash', input: { command: 'seq 100001 120000' } }],
      new Map([['Bash', bash]]),
      opts,
      new AbortController().signal,
      () => undefined,
    );
    expect(results[0]!.content).toMatch(/^\[output o1: 20,000 lines/);
    expect(results[0]!.content.endsWith('120000')).toBe(true);
    const archived = store.spilled.get('s1', 'o1')!;
    expect(archived.content.split('\n')).toHaveLength(20_000);
    expect(archived.content).toContain('\n110000\n');
  });

  it('survives a fork under the same handle', async () => {
    await spillOnce();
    store.forkSession('s1', { id: 's2', cwd: '/repo', provider: 'anthropic', model: 'm' });
    const range = await recall('s2')({ id: 'o1', offset: 6000, limit: 1 });
    expect(range.content).toContain('line 6000: ERROR boom');
    expect(await spillOnce()).toMatch(/^\[output o2:/);
  });

  it('refuses an unknown handle, a range past the end and a bad regex with clear errors', async () => {
    await spillOnce();
    const read = recall('s1');
    expect(await read({ id: 'o9', offset: 1 })).toMatchObject({ isError: true, content: expect.stringContaining('No archived item with id "o9"') });
    expect(await read({ id: 'o1', offset: 7000 })).toMatchObject({ isError: true, content: expect.stringContaining('past the end') });
    expect(await read({ id: 'o1', pattern: '(' })).toMatchObject({ isError: true, content: expect.stringContaining('not a valid regular expression') });
  });
});
