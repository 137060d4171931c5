import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Block } from '../../src/llm/messages.js';
import type { RecordedRequest } from '../fake-server/server.js';
import { jsonResult, runAgent, workspace, useFakeServer, isSummarizer } from './inprocess.js';
import { describeEachProvider, itRegimeFree } from './regime.js';

// After compaction, a detail the summary left out is found again: by the model through the
// Recall tool (both providers), and by the person through `agent sessions search` and /history.

const server = useFakeServer();

const FACT = 'the launch code is ZEBRA-4471';
const LONG = 'Padding prose that describes unrelated parts of the project at length. '.repeat(40);

/** Snippets mark matches «like this». */
const unmark = (s: string): string => s.replace(/[«»]/g, '');
const blocksOf = (q: RecordedRequest | undefined): Block[] => (q?.view?.messages ?? []).flatMap((m) => m.blocks);
const toolResultTexts = (q: RecordedRequest | undefined): string[] => blocksOf(q).flatMap((b) => (b.type === 'tool_result' ? [b.content] : []));

describeEachProvider('Recall with %s', (provider) => {
  it('finds a fact that only an archived tool output holds, after a compaction, by query and then by id', async () => {
    const ws = workspace();
    writeFileSync(join(ws.dir, 'secrets.md'), `# Notes\n\n${LONG}\n\nImportant: ${FACT}.\n\n${LONG}\n`);
    // the summary deliberately leaves the fact out
    server.respondWith((req) =>
      isSummarizer(req.view) ? { text: '## Goal\nShip the release.\n## Files and Symbols\n- secrets.md: project notes' } : undefined,
    );
    // (a Grep output: files read with FileRead are re-read fresh after a compaction, searches are not)
    server.enqueue(
      { toolCalls: [{ name: 'Grep', input: { pattern: 'Important', outputMode: 'lines', contextLines: 2 } }] },
      { text: `I searched the notes. ${LONG}` },
    );
    const first = await runAgent(['-p', 'search secrets.md'], { ws, server, provider });
    expect(first.code).toBe(0);
    for (let i = 0; i < 3; i++) {
      server.enqueue({ text: `Other work ${i}. ${LONG}` });
      expect((await runAgent(['-p', `other task ${i}`, '--continue'], { ws, server, provider })).code).toBe(0);
    }
    const compact = await runAgent(['-p', '/compact', '--continue'], { ws, server, provider });
    expect(compact.code, compact.stderr).toBe(0);
    server.clear();

    // the model no longer sees the file; it searches the archive, then opens the hit
    server.respondWith((req) => {
      if (isSummarizer(req.view)) return { text: '## Goal\nShip.' };
      const results = toolResultTexts(req);
      if (results.length === 0) return { toolCalls: [{ name: 'Recall', input: { query: 'launch code' } }] };
      const last = results.at(-1)!;
      const id = /\b(?:id[:=]?\s*|\()((?:m|tx)_[a-z0-9]+)/i.exec(last)?.[1];
      if (results.length === 1 && id) return { toolCalls: [{ name: 'Recall', input: { id } }] };
      return { text: /ZEBRA-4471/.test(last) ? 'The launch code is ZEBRA-4471.' : 'I could not find it.' };
    });
    const r = await runAgent(['-p', 'what was the launch code?', '--continue', '--output-format', 'json'], { ws, server, provider });
    expect(r.code, r.stderr).toBe(0);
    expect(jsonResult(r).result).toBe('The launch code is ZEBRA-4471.');

    const firstCall = server.requests[0]!;
    expect(JSON.stringify(firstCall.view!.messages)).not.toContain('ZEBRA-4471');
    // the checkpoint tells the model that the archive can be recalled
    expect(JSON.stringify(firstCall.view!.messages[0])).toMatch(/Recall/);
    const search = toolResultTexts(server.requests[1]).at(-1)!;
    expect(unmark(search)).toMatch(/ZEBRA-4471|launch code/i);
    const opened = toolResultTexts(server.requests[2]).at(-1)!;
    expect(opened).toContain(FACT);
  });

  itRegimeFree('reopens a tool output that micro compaction cleared, through the id in its placeholder', async () => {
    const model = 'small-16k';
    const ws = workspace({ models: { [model]: { contextWindow: 16_384, maxOutputTokens: 1024, provider } }, compaction: { microKeepRecent: 1 } });
    server.settings.contextWindow = { [model]: 16_384 };
    for (let i = 0; i < 6; i++) {
      const body = Array.from({ length: 90 }, (_, n) => `file ${i} line ${n}: ${n === 45 ? `needle-${i}-${'k'.repeat(3)} ` : ''}ordinary content here`).join(
        '\n',
      );
      writeFileSync(join(ws.dir, `part${i}.txt`), body);
    }
    server.respondWith((req) => (isSummarizer(req.view) ? { text: '## Goal\nRead parts.' } : undefined));
    for (let i = 0; i < 6; i++) {
      server.enqueue({ toolCalls: [{ name: 'FileRead', input: { path: `part${i}.txt` } }] }, { text: `part ${i} read` });
      const r = await runAgent(['-p', `read part${i}.txt`, ...(i ? ['--continue'] : []), '--model', model], { ws, server, provider });
      expect(r.code, r.stderr).toBe(0);
    }
    const last = server.requests.filter((q) => q.view && !isSummarizer(q.view)).at(-1)!;
    const placeholder = toolResultTexts(last).find((t) => /cleared to save context/.test(t));
    expect(placeholder, 'an old FileRead output was cleared').toBeDefined();
    const id = /Recall id (\S+?)\]/.exec(placeholder!)![1]!;

    server.clear();
    server.enqueue({ toolCalls: [{ name: 'Recall', input: { id } }] }, { text: 'got it back' });
    const r = await runAgent(['-p', 'reopen the cleared file', '--continue', '--model', model], { ws, server, provider });
    expect(r.code, r.stderr).toBe(0);
    const reopened = toolResultTexts(server.requests[1]).at(-1)!;
    expect(reopened).toMatch(/needle-\d-kkk/);
    expect(reopened).toMatch(/line 89: ordinary content here/);
  });
});

describe('Recall scope', () => {
  it('searches only the current session unless recall.crossSession is set', async () => {
    const ws = workspace();
    server.respondWith((req) => (isSummarizer(req.view) ? { text: '## Goal\nNothing memorable.' } : undefined));
    // session A archives a fact
    server.enqueue({ text: `The password hint is PELICAN-77. ${LONG}` });
    const a = jsonResult(await runAgent(['-p', 'remember the hint', '--output-format', 'json'], { ws, server }));
    for (let i = 0; i < 3; i++) {
      server.enqueue({ text: `filler ${i}. ${LONG}` });
      await runAgent(['-p', `filler ${i}`, '--continue'], { ws, server });
    }
    expect((await runAgent(['-p', '/compact', '--continue'], { ws, server })).code).toBe(0);

    // session B (a new one) asks Recall
    const recallOnce = (): void => {
      server.clear();
      server.respondWith((req) => (toolResultTexts(req).length === 0 ? { toolCalls: [{ name: 'Recall', input: { query: 'PELICAN' } }] } : { text: 'done' }));
    };
    recallOnce();
    expect((await runAgent(['-p', 'find the hint'], { ws, server })).code).toBe(0);
    const narrow = unmark(toolResultTexts(server.requests[1]).at(-1)!);
    expect(narrow).not.toContain('PELICAN-77');
    expect(narrow).toMatch(/no .*match|nothing/i);

    writeFileSync(join(ws.dir, '.agentrc'), JSON.stringify({ retry: { baseDelayMs: 5, maxDelayMs: 50 }, recall: { crossSession: true } }));
    recallOnce();
    expect((await runAgent(['-p', 'find the hint'], { ws, server })).code).toBe(0);
    const hit = toolResultTexts(server.requests[1]).at(-1)!;
    expect(unmark(hit)).toContain('The password hint is PELICAN-77');

    // the person finds it too, across sessions
    const found = await runAgent(['sessions', 'search', 'PELICAN'], { ws });
    expect(found.stdout).toContain(String(a.session_id));
    const history = await runAgent(['-p', '/history PELICAN', '--resume', String(a.session_id)], { ws, server });
    expect(history.stdout).toMatch(/PELICAN/);
    const id = /— (\S+)\n/.exec(history.stdout)![1]!;
    const opened = await runAgent(['-p', `/history open ${id}`, '--resume', String(a.session_id)], { ws, server });
    expect(opened.stdout).toContain('The password hint is PELICAN-77.');
  });
});
