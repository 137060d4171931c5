import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Message } from '../../src/llm/messages.js';
import { toFtsQuery } from '../../src/store/fts-query.js';
import { openStore, StoreError, type Store } from '../../src/store/index.js';
import { assistant, autoChange, microChange, tempDir, toolPair, user } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
let store: Store;

beforeEach(() => {
  tmp = tempDir();
  store = openStore(join(tmp.dir, 'agent.db'));
});
afterEach(() => {
  store.close();
  tmp.cleanup();
});

const page = { limit: 20, offset: 0 };

/** Appends the messages and archives all but the last user turn. */
function archiveConversation(sessionId: string, msgs: Message[]): void {
  store.createSession({ id: sessionId, cwd: '/repo', provider: 'anthropic', model: 'm' });
  for (const m of [...msgs, user('the final question'), assistant('final answer')]) store.appendMessage(sessionId, m, 5);
  store.applyCompaction(sessionId, autoChange(store.loadVisible(sessionId), 1)!);
}

describe('searchArchive', () => {
  it('ranks by bm25, marks matches in snippets and labels each hit', () => {
    const [call, result] = toolPair('Bash', { command: 'npm test' }, 'FAIL test/parser.test.ts\n  expected token ")" but found EOF\n1 failing');
    const msgs = [
      user('The parser chokes on nested parentheses. Fix the parser, the parser is the priority.'),
      call,
      result,
      assistant('I will look at the tokenizer first; the parser may be fine.'),
      user(`Unrelated: update the README. ${'Lorem ipsum dolor sit amet. '.repeat(30)} parser`),
      assistant('done'),
    ];
    archiveConversation('s', msgs);

    const hits = store.searchArchive('parser', { sessionId: 's', ...page });
    expect(new Set(hits.map((h) => h.id))).toEqual(new Set([msgs[0]!.id, msgs[2]!.id, msgs[3]!.id, msgs[4]!.id]));
    expect(hits[0]!.id).toBe(msgs[0]!.id); // three mentions in a short message beat one in a long one
    expect(hits.at(-1)!.id).toBe(msgs[4]!.id);
    for (let i = 1; i < hits.length; i++) expect(hits[i]!.rank).toBeGreaterThanOrEqual(hits[i - 1]!.rank);
    expect(hits[0]).toMatchObject({ kind: 'message', label: 'user message', sessionId: 's', createdAt: msgs[0]!.createdAt });
    expect(hits[0]!.snippet).toContain('«parser»');

    const [testHit] = store.searchArchive('"expected token"', { sessionId: 's', ...page });
    expect(testHit).toMatchObject({ id: msgs[2]!.id, label: 'tool result of Bash `npm test`' });
    expect(testHit!.snippet).toContain('«expected token»');
    expect(store.searchArchive('tokenizer', page)[0]).toMatchObject({ id: msgs[3]!.id, label: 'assistant message' });
    // tool calls are searchable by their input
    expect(store.searchArchive('npm', page).map((h) => h.id)).toContain(msgs[1]!.id);
  });

  it('finds cleared tool outputs by their full original content', () => {
    store.createSession({ id: 's', cwd: '/', provider: 'p', model: 'm' });
    const [c1, r1] = toolPair('Bash', { command: 'cargo build' }, 'error[E0308]: mismatched types in quasar_engine.rs');
    const [c2, r2] = toolPair('FileRead', { path: 'src/main.rs' }, 'fn main() { quasar_engine::start() }');
    for (const m of [user('build it'), c1, r1, c2, r2, assistant('ok')]) store.appendMessage('s', m, 5);
    const change = microChange(store.loadVisible('s'), 0)!;
    store.applyCompaction('s', change);
    const hits = store.searchArchive('quasar_engine', { sessionId: 's', ...page, archivedOnly: true });
    expect(hits.map((h) => h.kind)).toEqual(['tool_output', 'tool_output']);
    expect(hits.map((h) => h.label).sort()).toEqual(['Bash output `cargo build` (cleared)', 'FileRead output `src/main.rs` (cleared)']);
    const bash = hits.find((h) => h.label.startsWith('Bash'))!;
    expect(bash.id).toBe(change.cleared[0]!.archiveId);
    expect(bash.createdAt).toBe(r1.createdAt);
    expect(store.getArchived(bash.id)).toMatchObject({ kind: 'tool_output', text: 'error[E0308]: mismatched types in quasar_engine.rs', sessionId: 's' });
  });

  it('prefers rows with every term, falls back to any term, and pages consistently', () => {
    const msgs: Message[] = [];
    for (let i = 0; i < 12; i++) msgs.push(user(`note ${i} about walrus migration`), assistant(i % 3 === 0 ? `walrus and narwhal ${i}` : `reply ${i}`));
    archiveConversation('s', msgs);
    const both = store.searchArchive('walrus narwhal', { sessionId: 's', ...page });
    expect(both).toHaveLength(4);
    expect(both.every((h) => h.snippet.includes('«narwhal»'))).toBe(true);
    const either = store.searchArchive('narwhal zeppelin', { sessionId: 's', ...page }); // no row has both
    expect(either).toHaveLength(4);
    const all = store.searchArchive('walrus', { sessionId: 's', limit: 100, offset: 0 });
    expect(all).toHaveLength(16);
    const pages = [0, 5, 10, 15].flatMap((offset) => store.searchArchive('walrus', { sessionId: 's', limit: 5, offset }));
    expect(pages.map((h) => h.id)).toEqual(all.map((h) => h.id));
    expect(store.searchArchive('walrus', { sessionId: 's', limit: 5, offset: 16 })).toEqual([]);
  });

  it('searches one session or all of them', () => {
    archiveConversation('a', [user('the ocelot in session a'), assistant('ok')]);
    archiveConversation('b', [user('the ocelot in session b'), assistant('ok')]);
    expect(store.searchArchive('ocelot', { sessionId: 'a', ...page }).map((h) => h.sessionId)).toEqual(['a']);
    expect(
      store
        .searchArchive('ocelot', page)
        .map((h) => h.sessionId)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(store.searchArchive('ocelot', { sessionId: 'zzz', ...page })).toEqual([]);
  });

  it('never lets FTS5 syntax from free text escape, and refuses an empty query clearly', () => {
    archiveConversation('s', [user('grep for "AND" OR NOT near(foo) in src/*.ts -- col:val ^start'), assistant('ok')]);
    const nasty = [
      'AND',
      'OR NOT',
      '"unbalanced',
      'near(foo',
      'col:val',
      '^start',
      '-minus',
      'src/*.ts',
      'a AND (b OR',
      'foo* bar*',
      "it's",
      '{x y}',
      'NEAR("a" "b", 3)',
    ];
    for (const q of nasty) {
      expect(() => store.searchArchive(q, page), q).not.toThrow();
    }
    expect(store.searchArchive('near(foo', page)).toHaveLength(1);
    expect(store.searchArchive('src/*.ts', page)).toHaveLength(1);
    expect(store.searchArchive('sta*', page)).toHaveLength(1); // prefix search
    for (const q of ['', '   ', '"" ()', '*** --', '*']) {
      try {
        store.searchArchive(q, page);
        throw new Error(`no error for ${JSON.stringify(q)}`);
      } catch (e) {
        expect(e).toBeInstanceOf(StoreError);
        expect((e as StoreError).kind).toBe('invalid');
        expect((e as StoreError).message).toMatch(/query is empty/);
      }
    }
    expect(() => store.searchArchive('x', { limit: 0, offset: 0 })).toThrow(/limit/);
    expect(() => store.searchArchive('x', { limit: 5, offset: -1 })).toThrow(/offset/);
  });

  it('the LIKE scan finds the same rows as FTS for a plain word', () => {
    const msgs: Message[] = [];
    for (let i = 0; i < 10; i++) msgs.push(user(i % 2 ? `the pelican number ${i}` : `nothing ${i}`), assistant(`reply ${i}`));
    archiveConversation('s', msgs);
    const fts = store.searchArchive('pelican', { sessionId: 's', ...page });
    const like = store.likeScanArchive('pelican', { sessionId: 's', ...page });
    expect(like.map((h) => h.id).sort()).toEqual(fts.map((h) => h.id).sort());
    expect(like).toHaveLength(5);
    expect(like[0]!.snippet).toContain('«pelican»');
    expect(like.map((h) => h.createdAt)).toEqual([...like.map((h) => h.createdAt)].sort((a, b) => b - a));
    expect(store.likeScanArchive('100%_sure', page)).toEqual([]); // LIKE wildcards are escaped
  });
});

describe('getArchived', () => {
  it('returns the full text of an archived message, nothing for visible or unknown ids', () => {
    const [call, result] = toolPair('Grep', { pattern: 'TODO', path: 'src' }, 'src/a.ts:3: // TODO');
    const msgs = [user('find todos'), call, result, assistant('one TODO')];
    archiveConversation('s', msgs);
    const item = store.getArchived(result.id)!;
    expect(item).toMatchObject({ id: result.id, kind: 'message', label: 'tool result of Grep `TODO`', sessionId: 's', createdAt: result.createdAt });
    expect(item.text).toContain('src/a.ts:3: // TODO');
    expect(store.getArchived(call.id)!.text).toContain('"pattern":"TODO"');
    expect(store.getArchived(result.id, { sessionId: 'other' })).toBeUndefined();
    const visibleId = store.loadVisible('s').at(-1)!.id;
    expect(store.getArchived(visibleId)).toBeUndefined();
    expect(store.getArchived('nope')).toBeUndefined();
  });
});

describe('getArchived with images', () => {
  // mutation: an archived item without the images its stored message holds fails this
  it("attaches an archived message's images (its own and its tool results') as they were stored", () => {
    const img = { type: 'image' as const, mediaType: 'image/png', data: 'iVBORw0KGgo=' };
    const [call, result] = toolPair('mcp__shots__take', { name: 'home' }, 'a screenshot');
    const shot: Message = { ...result, blocks: result.blocks.map((b) => (b.type === 'tool_result' ? { ...b, images: [img] } : b)) };
    const asked: Message = { ...user('what is in this one?'), blocks: [...user('what is in this one?').blocks, { ...img, data: 'R0lGODlh' }] };
    archiveConversation('s', [asked, assistant('a cat'), user('take one'), call, shot, assistant('taken')]);
    expect(store.getArchived(asked.id)!.images).toEqual([{ ...img, data: 'R0lGODlh' }]);
    expect(store.getArchived(shot.id)!.images).toEqual([img]);
    expect(store.getArchived(call.id)!.images).toBeUndefined();
  });
});

describe('toFtsQuery', () => {
  it('quotes every term, keeps phrases and prefixes, drops punctuation-only chunks', () => {
    expect(toFtsQuery('npm test')).toEqual({ all: '"npm" "test"', any: '"npm" OR "test"', terms: ['npm', 'test'] });
    expect(toFtsQuery('"exact phrase" pre* ---')).toEqual({ all: '"exact phrase" "pre"*', any: '"exact phrase" OR "pre"*', terms: ['exact phrase', 'pre'] });
    expect(toFtsQuery('say"hi"')!.all).toBe('"say" "hi"');
    expect(toFtsQuery('()')).toBeUndefined();
  });
});
