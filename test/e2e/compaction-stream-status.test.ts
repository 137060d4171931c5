import { expect } from 'vitest';
import type { RequestView } from '../fake-server/types.js';
import { bigFile } from './compaction-cases.js';
import { isSummarizer, runAgent, useFakeServer, workspace } from './inprocess.js';
import { itRegimeFree } from './regime.js';

// `-p --output-format stream-json` that ends with a background summary in flight and not due
// (issue 43): the job is cancelled at the run's end, and Claude Code's status it opened
// ("compacting") is closed (null, compact_result failed) before the run exits, never left open.

const server = useFakeServer();
const MODEL = 'bg-status-30k';

const isWarmUp = (v: RequestView): boolean => (v.maxTokens ?? Number.POSITIVE_INFINITY) <= 16;
type Msg = { type: string; subtype?: string; status?: string | null; compact_result?: string };

itRegimeFree(
  'a summary still in flight when a stream-json run ends: its "compacting" status is closed',
  async () => {
    const ws = workspace({
      models: { [MODEL]: { contextWindow: 30_000, maxOutputTokens: 4_096, provider: 'anthropic' } },
      // the summary starts early (a tenth of the auto threshold) and the run ends far below the threshold: never due
      compaction: { prefire: 0.1, microKeepRecent: 100 },
    });
    server.settings.contextWindow = { [MODEL]: 30_000, '*': 1_000_000 };
    bigFile(ws, 'f0.txt', 60);
    let step = 0;
    server.respondWith((req) => {
      const v = req.view;
      // the summarizer never answers: the job is still running when the run ends
      if (isSummarizer(v)) return { text: '## Goal\nx', hang: true };
      if (isWarmUp(v)) return { text: 'ok' };
      step++;
      return step === 1 ? { toolCalls: [{ name: 'FileRead', input: { path: 'f0.txt' } }] } : { text: 'Read it.' };
    });
    const r = await runAgent(['-p', 'read f0.txt', '--output-format', 'stream-json', '--verbose', '--model', MODEL], { ws, server, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const msgs = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Msg);
    const statuses = msgs.filter((m) => m.type === 'system' && m.subtype === 'status');
    // a summary was started (the status opened), and no compaction was applied
    expect(server.requests.some((q) => q.view && isSummarizer(q.view))).toBe(true);
    expect(statuses[0], r.stdout).toMatchObject({ status: 'compacting' });
    expect(msgs.some((m) => m.subtype === 'compact_boundary')).toBe(false);
    // the last status closes it: null, with the cancelled job's result
    expect(statuses.at(-1), r.stdout).toMatchObject({ status: null, compact_result: 'failed' });
  },
  90_000,
);

itRegimeFree(
  'a summary already written when a print run ends is swapped in, not thrown away: the next run starts compacted',
  async () => {
    const ws = workspace({
      models: { [MODEL]: { contextWindow: 30_000, maxOutputTokens: 4_096, provider: 'anthropic' } },
      compaction: { prefire: 0.1, microKeepRecent: 100 },
    });
    server.settings.contextWindow = { [MODEL]: 30_000, '*': 1_000_000 };
    bigFile(ws, 'f0.txt', 60);
    bigFile(ws, 'f1.txt', 60);
    let step = 0;
    server.respondWith((req) => {
      const v = req.view;
      if (isSummarizer(v)) return { text: '## Goal\nRead the files.\n## Next Steps\nNone.' };
      if (isWarmUp(v)) return { text: 'ok' };
      step++;
      if (step === 1 || step === 3) return { toolCalls: [{ name: 'FileRead', input: { path: `f${(step - 1) / 2}.txt` } }] };
      return { text: `Read it (${step}).` };
    });
    const first = await runAgent(['-p', 'read f0.txt', '--model', MODEL], { ws, server, timeoutMs: 60_000 });
    expect(first.code, first.stderr).toBe(0);
    const r = await runAgent(['-p', 'read f1.txt', '--output-format', 'stream-json', '--verbose', '--model', MODEL, '--continue'], {
      ws,
      server,
      timeoutMs: 60_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const msgs = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Msg);
    // far below the auto threshold, the written summary was swapped in before the run ended
    const boundary = msgs.find((m) => m.subtype === 'compact_boundary') as (Msg & { compact_metadata?: { trigger: string } }) | undefined;
    expect(boundary, r.stdout).toBeDefined();
    expect(boundary!.compact_metadata?.trigger).toBe('auto');
    expect(msgs.filter((m) => m.subtype === 'status').at(-1)).toMatchObject({ status: null, compact_result: 'success' });
    const next = await runAgent(['-p', 'and now?', '--model', MODEL, '--continue'], { ws, server, timeoutMs: 60_000 });
    expect(next.code, next.stderr).toBe(0);
    const sent = server.requests.filter((q) => q.view && !isSummarizer(q.view) && !isWarmUp(q.view)).at(-1)!;
    const head = sent.view!.messages[0]?.blocks[0];
    expect(head?.type === 'text' && head.text.startsWith('[Context checkpoint')).toBe(true);
  },
  90_000,
);

// Mutation checked: restingCompaction.ts settle() cancelling the job without its compaction_skipped
// event leaves the last status "compacting" (the first test's final expectation fails); settle()
// without `pending.ready` in its condition cancels the written summary (no compact_boundary: the
// second test fails).
