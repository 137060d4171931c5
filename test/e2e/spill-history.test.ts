import { beforeEach, expect, it } from 'vitest';
import { isSummarizer, runAgent, workspace, type Workspace, useFakeServer } from './inprocess.js';
import { describeEachProvider } from './regime.js';

// Both regimes: compaction and /rewind rewrite a history holding thinking blocks.
// A spilled output's handle across the commands that rewrite the history, end to end in print
// mode: /compact then /uncompact, /rewind to a turn after the spill, and /rewind to before it.
// After each, the model's Recall of the handle returns exactly the right lines. A rewind takes
// turns out of the conversation but deletes nothing: the output stays in the session's archive
// and its handle keeps reading it (docs/compaction.md, "Spilled tool outputs"); a later spill gets a new
// handle, never the old one again.

const server = useFakeServer();
const SUMMARY = '## Goal\nRun the numbers.\n## Next Steps\nRead them.';

const requestText = (): string => JSON.stringify(server.requests.filter((q) => q.view && !isSummarizer(q.view)).at(-1)!.view!.messages);
const lastResults = (n: number): string[] => {
  const q = server.requests.filter((r) => r.view && !isSummarizer(r.view)).at(-1)!;
  return (q.view?.messages ?? []).flatMap((m) => m.blocks.flatMap((b) => (b.type === 'tool_result' ? [b.content] : []))).slice(-n);
};

describeEachProvider('spill handles across /compact, /uncompact and /rewind with %s', (provider) => {
  let ws: Workspace;
  beforeEach(() => {
    // the compaction keeps only the last turn verbatim: the spill's turn leaves the view
    ws = workspace({ permissions: { mode: 'allow' }, compaction: { tailTurns: 1 } });
    server.respondWith((req) => (isSummarizer(req.view) ? { text: SUMMARY } : undefined));
  });
  const run = async (args: string[]): Promise<string> => {
    const r = await runAgent([...args, '--continue'], { ws, server, provider, timeoutMs: 60_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    return r.stdout;
  };
  /** One turn in which the model reads line 3,000-3,001 of `handle` by range and by pattern; the two results. */
  const recallBoth = async (prompt: string, handle: string): Promise<[string, string]> => {
    server.enqueue(
      {
        toolCalls: [
          { name: 'Recall', input: { id: handle, offset: 3000, limit: 2 } },
          { name: 'Recall', input: { id: handle, pattern: '^[0-9]+300[12]$', context: 0 } },
        ],
      },
      { text: 'read' },
    );
    await run(['-p', prompt]);
    const [range, grep] = lastResults(2);
    return [range!, grep!];
  };
  const expectLines = ([range, grep]: [string, string], base: number): void => {
    expect(range.split('\n').slice(1, 3)).toEqual([String(base + 3000), String(base + 3001)]);
    expect(grep.split('\n').slice(1)).toEqual([`3001: ${base + 3001}`, `3002: ${base + 3002}`]);
  };

  it('keeps the handle reading the same lines after /compact, /uncompact, a /rewind after the spill and one before it', async () => {
    server.enqueue({ text: 'hello' });
    expect((await runAgent(['-p', 'first turn'], { ws, server, provider })).code).toBe(0);
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: 'seq 200001 206000' } }] }, { text: 'ran it' });
    await run(['-p', 'run the numbers']);
    expect(requestText()).toContain('[output o1: 6,000 lines');
    server.enqueue({ text: 'noted' });
    await run(['-p', 'third turn']);

    // compacted: the preview left the view, the handle still reads the archive
    await run(['-p', '/compact']);
    server.enqueue({ text: 'ok' });
    await run(['-p', 'after the compaction']);
    expect(requestText()).not.toContain('[output o1:');
    expectLines(await recallBoth('read o1 while compacted', 'o1'), 200_000);

    // uncompacted: the preview is back in view and names the same handle
    expect(await run(['-p', '/uncompact'])).toMatch(/Undid compaction 1/);
    expectLines(await recallBoth('read o1 after /uncompact', 'o1'), 200_000);
    expect(requestText()).toContain('[output o1: 6,000 lines');

    // a rewind to a turn after the spill: the spill stays in view, its handle reads the same
    const listed = await run(['-p', '/rewind']);
    const after = /(\d+)\. .*read o1 after \/uncompact/.exec(listed)![1]!;
    expect(await run(['-p', `/rewind ${after} conversation`])).toMatch(/Conversation: \d+ messages? archived/);
    expectLines(await recallBoth('read o1 after a rewind', 'o1'), 200_000);
    expect(requestText()).not.toContain('read o1 after /uncompact');
    expect(requestText()).toContain('[output o1: 6,000 lines');

    // a rewind to before the spill: the preview leaves the conversation, the output stays archived
    const before = /(\d+)\. .*run the numbers/.exec(await run(['-p', '/rewind']))![1]!;
    await run(['-p', `/rewind ${before} conversation`]);
    expectLines(await recallBoth('read o1 after rewinding past it', 'o1'), 200_000);
    expect(requestText()).not.toContain('[output o1:');
    expect(requestText()).not.toContain('run the numbers');

    // a new spill gets a new handle; both read their own output
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: 'seq 300001 306000' } }] }, { text: 'ran again' });
    await run(['-p', 'run other numbers']);
    expect(requestText()).toContain('[output o2: 6,000 lines');
    expectLines(await recallBoth('read o2', 'o2'), 300_000);
    expectLines(await recallBoth('read o1 again', 'o1'), 200_000);
  }, 180_000);
});
