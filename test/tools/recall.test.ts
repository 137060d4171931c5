import { describe, expect, it } from 'vitest';
import { traitsOf } from '../../src/tools/kinds.js';
import { createRecallTool } from '../../src/tools/recall.js';
import { ToolInputError, type AnyTool, type RecallHit, type RecallSource, type ToolSession } from '../../src/tools/types.js';
import { call, ctx } from './helpers.js';

interface Item {
  id: string;
  label: string;
  text: string;
  sessionId?: string;
  createdAt?: number;
}

/** A small in-memory archive: hits ranked by how many query words the text contains. */
class MemoryArchive implements RecallSource {
  readonly searches: Array<{ query: string; limit: number; offset: number }> = [];
  constructor(private readonly items: Item[]) {}
  search(query: string, opts: { limit: number; offset: number }): RecallHit[] {
    this.searches.push({ query, ...opts });
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    return this.items
      .map((it) => ({ it, score: words.filter((w) => it.text.toLowerCase().includes(w)).length }))
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(opts.offset, opts.offset + opts.limit)
      .map(({ it }) => ({
        id: it.id,
        label: it.label,
        snippet: it.text.slice(0, 80),
        sessionId: it.sessionId ?? 's1',
        createdAt: it.createdAt ?? Date.UTC(2025, 0, 2, 3, 4),
      }));
  }
  get(id: string) {
    const it = this.items.find((x) => x.id === id);
    return it && { id: it.id, label: it.label, text: it.text };
  }
}

const recall = createRecallTool({ pageSize: 2, pageLines: 3 }) as AnyTool;
/** The same tool built for a session that lends it an archive. */
const recallOver = (session: ToolSession): AnyTool => createRecallTool({ pageSize: 2, pageLines: 3 }, session) as AnyTool;

const archive = () =>
  new MemoryArchive([
    { id: 'm1', label: 'user message', text: 'Please fix the flaky login test in auth.spec.ts' },
    { id: 't7', label: 'Bash output `npm test`', text: 'FAIL auth.spec.ts\n  login test: expected 200, got 500\nline 3\nline 4\nline 5\nline 6\nline 7' },
    { id: 'm3', label: 'assistant message', text: 'The login handler throws when the session cookie is missing' },
    { id: 'm4', label: 'user message', text: 'also keep the login page accessible' },
  ]);

describe('Recall', () => {
  it('says clearly when there is no archive', async () => {
    const out = await call(recall, { query: 'login' }, ctx('/'));
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/^Nothing has been archived in this session yet/);
  });

  it('searches with ranked hits, ids, labels, snippets, and pages with offset', async () => {
    const a = archive();
    const first = await call(recallOver({ recall: a }), { query: 'login test' }, ctx('/'));
    expect(first.isError).toBe(false);
    expect(first.content).toBe(
      [
        'Archive hits 1-2 for "login test" (read one in full with Recall id=…):',
        '',
        '1. id: m1 — user message · 2025-01-02 03:04 UTC',
        '   Please fix the flaky login test in auth.spec.ts',
        '',
        '2. id: t7 — Bash output `npm test` · 2025-01-02 03:04 UTC',
        '   FAIL auth.spec.ts login test: expected 200, got 500 line 3 line 4 line 5 line',
        '',
        'More hits: Recall with query="login test", offset=2.',
      ].join('\n'),
    );
    // one more than the page is asked for, to know whether a next page exists
    expect(a.searches[0]).toEqual({ query: 'login test', limit: 3, offset: 0 });
    const second = await call(recallOver({ recall: a }), { query: 'login test', offset: 2 }, ctx('/'));
    expect(second.content).toContain('Archive hits 3-4 for "login test"');
    expect(second.content).toContain('3. id: m3');
    expect(second.content).not.toContain('More hits');
    const past = await call(recallOver({ recall: a }), { query: 'login test', offset: 4 }, ctx('/'));
    expect(past).toEqual({ content: 'No more hits for "login test" after the first 4.', isError: false });
  });

  it('says when nothing matches', async () => {
    expect(await call(recallOver({ recall: archive() }), { query: 'kubernetes' }, ctx('/'))).toEqual({
      content: 'No archived messages or tool outputs match "kubernetes". Try other or fewer words.',
      isError: false,
    });
  });

  it('names the session only when hits come from several', async () => {
    const a = new MemoryArchive([
      { id: 'x1', label: 'user message', text: 'deploy script', sessionId: 'sA' },
      { id: 'x2', label: 'user message', text: 'deploy notes', sessionId: 'sB' },
    ]);
    const out = await call(recallOver({ recall: a }), { query: 'deploy' }, ctx('/'));
    expect(out.content).toContain('· session sA');
    expect(out.content).toContain('· session sB');
  });

  it('reads one item in full, paged by lines, saying how to read on', async () => {
    const a = archive();
    const small = await call(recallOver({ recall: a }), { id: 'm1' }, ctx('/'));
    expect(small).toEqual({ content: 'user message (id m1):\nPlease fix the flaky login test in auth.spec.ts', isError: false });
    const page1 = await call(recallOver({ recall: a }), { id: 't7' }, ctx('/'));
    expect(page1.content).toBe(
      'Bash output `npm test` (id t7), lines 1-3 of 7:\nFAIL auth.spec.ts\n  login test: expected 200, got 500\nline 3\n\n… 4 more lines. Read on with Recall id="t7", offset=4.',
    );
    const page2 = await call(recallOver({ recall: a }), { id: 't7', offset: 4, limit: 10 }, ctx('/'));
    expect(page2.content).toBe('Bash output `npm test` (id t7), lines 4-7 of 7:\nline 4\nline 5\nline 6\nline 7');
    expect((await call(recallOver({ recall: a }), { id: 't7', offset: 9 }, ctx('/'))).isError).toBe(true);
  });

  it('caps a page by characters too', async () => {
    const big = new MemoryArchive([{ id: 'big', label: 'FileRead output', text: Array.from({ length: 100 }, () => 'x'.repeat(100)).join('\n') }]);
    const tool = createRecallTool({ pageChars: 1000 }, { recall: big }) as AnyTool;
    const out = await call(tool, { id: 'big' }, ctx('/'));
    expect(out.content).toContain('lines 1-9 of 100');
    expect(out.content).toContain('offset=10.');
  });

  it('reports an unknown id and a failing archive as errors, not throws', async () => {
    const a = archive();
    const unknown = await call(recallOver({ recall: a }), { id: 'nope' }, ctx('/'));
    expect(unknown.isError).toBe(true);
    expect(unknown.content).toMatch(/^No archived item with id "nope"/);
    const broken: RecallSource = {
      search: () => {
        throw new Error('fts5: syntax error near "("');
      },
      get: () => undefined,
    };
    expect(await call(recallOver({ recall: broken }), { query: '(' }, ctx('/'))).toEqual({
      content: 'Recall failed: fts5: syntax error near "("',
      isError: true,
    });
  });

  it('needs exactly one of query and id', () => {
    expect(() => recall.parse({})).toThrow(ToolInputError);
    expect(() => recall.parse({ query: 'a', id: 'b' })).toThrow(/either "query" or "id"/);
    expect(() => recall.parse({ query: '' })).toThrow(/"query"/);
    // a read whose pages are cut to the threshold instead of spilled
    expect(traitsOf(recall)).toEqual({ readOnly: true, mutating: false, editsFiles: false, compactable: true, spills: false });
  });

  it("keeps a page of hits within the call's result limit (the spill threshold), with the offset to read on", async () => {
    const many = new MemoryArchive(Array.from({ length: 40 }, (_, i) => ({ id: `m${i}`, label: 'user message', text: `needle ${i} ${'word '.repeat(20)}` })));
    const page = await call(createRecallTool({}, { recall: many, resultChars: () => 2_000 }) as AnyTool, { query: 'needle', limit: 50 }, ctx('/'));
    expect(page.content.length).toBeLessThanOrEqual(2_000);
    const shown = [...page.content.matchAll(/^\d+\. id: /gm)].length;
    expect(shown).toBeGreaterThan(3);
    expect(shown).toBeLessThan(40);
    expect(page.content).toContain(`More hits: Recall with query="needle", offset=${shown}.`);
  });

  it('pages hits up to the result limit less its frame, never below 1,000 characters', async () => {
    const many = new MemoryArchive(Array.from({ length: 40 }, (_, i) => ({ id: `m${i}`, label: 'user message', text: `needle ${i} ${'word '.repeat(20)}` })));
    const shownAt = async (limit: number): Promise<number> => {
      const page = await call(createRecallTool({}, { recall: many, resultChars: () => limit }) as AnyTool, { query: 'needle', limit: 50 }, ctx('/'));
      return [...page.content.matchAll(/^\d+\. id: /gm)].length;
    };
    // 2,000 leaves 1,600 for hits, 1,400 and 1,200 the floor of 1,000 (mutations: the floor as a ceiling, or none)
    const [wide, floor, under] = [await shownAt(2_000), await shownAt(1_400), await shownAt(1_200)];
    expect(wide).toBeGreaterThan(floor);
    expect(under).toBe(floor);
  });
});
