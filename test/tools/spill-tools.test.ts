import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LoopOptions } from '../../src/agent/host.js';
import { runTools } from '../../src/agent/runTools.js';
import { archiveRecall, archiveSpill } from '../../src/session/recall.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createTools } from '../../src/tools/registry.js';
import type { AnyTool, ToolContext, ToolSession } from '../../src/tools/types.js';
import { charsOfTokens } from '../../src/tools/spill.js';
import { tempDir } from '../store/helpers.js';

// The one spill rule for every built-in tool's result: Grep, Glob and FileRead results over the
// threshold are archived with their whole text (FileRead's own 100,000-character cut does not
// reach the archive), and Recall is cut to the threshold, never spilled. Each through the
// result path every call takes (runTools), with the real tools on real files.

describe('the spill rule for each built-in tool', () => {
  let tmp: ReturnType<typeof tempDir>;
  let store: Store;
  let project: string;
  beforeEach(() => {
    tmp = tempDir();
    project = join(tmp.dir, 'project');
    mkdirSync(project);
    store = openStore(join(tmp.dir, 'agent.db'));
    store.createSession({ id: 's1', cwd: project, provider: 'anthropic', model: 'm' });
  });
  afterEach(() => {
    store.close();
    tmp.cleanup();
  });

  /** A built-in tool, built as a session builds it: over its archive and its spill threshold (or over nothing). */
  const tool = (name: string, lent: ToolSession = {}): AnyTool =>
    createTools({ bash: { timeoutMs: 60_000, maxTimeoutMs: 60_000, maxOutputChars: 30_000 } }, lent).find((t) => t.name === name)!;
  let n = 0;
  /** One call through runTools with spilling at `spillTokens` (0: off); the model's copy. */
  async function call(name: string, input: Record<string, unknown>, spillTokens = 2_000): Promise<{ content: string; isError: boolean }> {
    const spill = archiveSpill(
      store,
      () => 's1',
      () => ({ spillTokens, spillTokensByTool: {} }),
    );
    const opts = { cwd: project, gate: { authorize: async () => ({ ok: true }) }, spill } as unknown as LoopOptions;
    const lent: ToolSession = { recall: archiveRecall(store, 's1', () => false), resultChars: (tool) => charsOfTokens(spill.thresholdFor(tool)) };
    const { results } = await runTools(
      [{ type: 'tool_use', id: `tu${++n}`, name, input }],
      new Map([[name, tool(name, lent)]]),
      opts,
      new AbortController().signal,
      () => undefined,
    );
    return results[0]!;
  }
  /** What the tool itself returns for the input, outside the result path. */
  const direct = async (name: string, input: unknown): Promise<string> => {
    const t = tool(name);
    return (await t.run(t.parse(input), { cwd: project, signal: new AbortController().signal } as ToolContext)).content;
  };

  it('Grep: a result over the threshold is spilled, the archive holds exactly the text Grep produced', async () => {
    writeFileSync(
      join(project, 'big.log'),
      Array.from({ length: 1_500 }, (_, i) => `event ${i + 1}: NEEDLE found in the haystack of line ${i + 1}`).join('\n'),
    );
    const input = { pattern: 'NEEDLE', outputMode: 'lines', maxResults: 1_200 };
    const whole = await direct('Grep', input);
    expect(whole.length).toBeGreaterThan(8_000);
    const got = await call('Grep', input);
    expect(got.content).toMatch(/^\[output o1: 1,202 lines/);
    expect(got.content).toContain('300 not shown'); // Grep's own note, at the end, is in the tail
    expect(store.spilled.get('s1', 'o1')!.content).toBe(whole);
  });

  it('Glob: a result over the threshold is spilled, the archive holds exactly the text Glob produced', async () => {
    const deep = join(project, 'packages', 'a-rather-long-package-name', 'src', 'components', 'deeply', 'nested');
    mkdirSync(deep, { recursive: true });
    for (let i = 0; i < 100; i++) writeFileSync(join(deep, `SomeComponentWithALongName${i}.test.tsx`), '');
    const whole = await direct('Glob', { pattern: '**/*.tsx' });
    expect(whole.length).toBeGreaterThan(8_000);
    const got = await call('Glob', { pattern: '**/*.tsx' });
    expect(got.content).toMatch(/^\[output o1: 100 lines/);
    expect(store.spilled.get('s1', 'o1')!.content).toBe(whole);
  });

  it('FileRead: past its own 100,000-character cut, the archive still gets every requested line', async () => {
    const lines = Array.from({ length: 2_500 }, (_, i) => `const value${i + 1} = "${'x'.repeat(90)}";`);
    writeFileSync(join(project, 'big.ts'), `${lines.join('\n')}\n`);
    // unspilled, the model's copy stops at the tool's cut and says where to read on
    const cut = await call('FileRead', { path: 'big.ts' }, 0);
    expect(cut.content.length).toBeLessThanOrEqual(100_000 + 200);
    expect(cut.content).toMatch(/showing 1-\d+ \(output capped at 100,000 characters\)/);
    // spilled: the archive has the 2,000 lines asked for (the default limit), the preview the last of them
    const got = await call('FileRead', { path: 'big.ts' });
    expect(got.content).toMatch(/^\[output o1: 2,002 lines/);
    const archived = store.spilled.get('s1', 'o1')!.content;
    expect(archived).toContain(`  2000\t${lines[1_999]}`);
    expect(archived).not.toContain('output capped');
    expect(archived.endsWith('… file has 2,500 lines; showing 1-2,000. Read more with offset=2001.')).toBe(true);
    expect(got.content).toContain(`  2000\t${lines[1_999]}`);
    // what it read is recorded as before (an edit after a spilled read is not refused)
    const read = await call('Recall', { id: 'o1', pattern: '^  1500\\t', context: 0 });
    expect(read.content).toContain(`1500:   1500\t${lines[1_499]}`);
  });

  it('Recall: a read over the threshold is cut to it with a note on reading on, never spilled', async () => {
    // 6,000 lines of 60 characters: a default page (500 lines) or 200 matches are well over 8,000 characters
    await call('Bash', { command: "seq 100001 106000 | sed 's/$/ is a number with some words after it to pad the line/'" });
    expect(store.spilled.all('s1').map((s) => s.id)).toEqual(['o1']);
    const page = await call('Recall', { id: 'o1' });
    expect(page.content).not.toMatch(/^\[output/);
    expect(page.content.length).toBeLessThanOrEqual(8_000);
    expect(page.content).toMatch(/lines 1-\d+ of 6,000:\n100001 is a number/);
    expect(page.content).toMatch(/Read on with Recall id="o1", offset=\d+\.$/);
    const matches = await call('Recall', { id: 'o1', pattern: '^10', context: 0 });
    expect(matches.content.length).toBeLessThanOrEqual(8_000);
    expect(matches.content).toMatch(/more matching lines? not shown: narrow the pattern/);
    const hits = await call('Recall', { query: 'number', limit: 50 });
    expect(hits.content.length).toBeLessThanOrEqual(8_000);
    // the threshold is per tool: Recall's own raises its page
    const wide = await call('Recall', { id: 'o1', limit: 400 }, 40_000);
    expect(wide.content.split('\n')).toHaveLength(1 + 400 + 2);
    expect(store.spilled.all('s1').map((s) => s.id)).toEqual(['o1']);
  });
});
