import { beforeAll, describe, expect, it } from 'vitest';
import { buildCheckpointMessage } from '../../src/compaction/checkpoint.js';
import { buildRestoration, quotedRequests, recentReadPaths, type RestoreOptions } from '../../src/compaction/restore.js';
import { loadTokenizer, TokenCounter } from '../../src/compaction/tokens.js';
import type { Message } from '../../src/llm/messages.js';
import { assistant, step, tokensText, user } from './helpers.js';

let counter: TokenCounter;
beforeAll(async () => {
  await loadTokenizer();
  counter = new TokenCounter();
});

const opts = (over: Partial<RestoreOptions> = {}): RestoreOptions => ({
  budget: 5_000,
  fileBudget: 1_000,
  maxFiles: 5,
  fileReadTools: ['FileRead'],
  signal: new AbortController().signal,
  ...over,
});

describe('recentReadPaths', () => {
  it('most recent first, unique, up to the limit, without reads the tail still shows', () => {
    const archived = [
      user('q'),
      ...step('FileRead', { path: 'a' }, 'x'),
      ...step('FileRead', { file_path: 'b' }, 'x'),
      ...step('Bash', { command: 'cat c' }, 'x'),
      ...step('FileRead', { path: 'a' }, 'x'),
      ...step('FileRead', { path: 'd' }, 'x'),
    ];
    const tail = [user('more'), ...step('FileRead', { path: 'd' }, 'still here')];
    expect(recentReadPaths(archived, tail, ['FileRead'], 5)).toEqual(['a', 'b']);
    expect(recentReadPaths(archived, [], ['FileRead'], 2)).toEqual(['d', 'a']);
  });
});

describe('recent requests', () => {
  it('quotes the latest three verbatim, multi-line included, and reads them back from the checkpoint', async () => {
    const multi = 'Refactor the parser.\n\nConstraints:\n- keep `parse()` sync\n- no new deps';
    const archived: Message[] = [
      user('first'),
      assistant('ok'),
      user('second'),
      assistant('ok'),
      user(multi),
      assistant('ok'),
      user('fourth: use tabs'),
      assistant('ok'),
    ];
    const r = await buildRestoration(archived, [], opts(), counter);
    expect(r.requestCount).toBe(3);
    expect(r.requests).toContain('> Refactor the parser.\n>\n> Constraints:\n> - keep `parse()` sync');
    expect(r.requests).not.toContain('> first');
    const cp = buildCheckpointMessage({ compactionId: 'c1', summary: 's', archivedCount: 8, restoration: r, createdAt: 0 });
    expect(quotedRequests(cp)).toEqual(['second', multi, 'fourth: use tabs']);
    // the next compaction archives that checkpoint: its requests carry forward, newest last
    const next = await buildRestoration([cp, ...step('Bash', { command: 'x' }, 'y'), user('fifth'), assistant('done')], [], opts(), counter);
    const cp2 = buildCheckpointMessage({ compactionId: 'c2', summary: 's', archivedCount: 4, restoration: next, createdAt: 0 });
    expect(quotedRequests(cp2)).toEqual([multi, 'fourth: use tabs', 'fifth']);
  });

  it('a request too large for its share is shortened, saying where the full text is', async () => {
    const huge = user(tokensText(10_000, 'huge'));
    const r = await buildRestoration([huge, assistant('ok')], [], opts({ budget: 1_000 }), counter);
    expect(r.requests).toContain(`Recall id ${huge.id} has it in full`);
    expect(r.tokens).toBeLessThanOrEqual(1_000);
  });

  it('nothing when the budget is zero', async () => {
    expect(await buildRestoration([user('x')], [], opts({ budget: 0 }), counter)).toEqual({ restoredPaths: [], requestCount: 0, tokens: 0 });
  });
});

describe('files', () => {
  it('skips unreadable files, caps each file, stays within the whole budget', async () => {
    const archived = [
      user('q'),
      ...step('FileRead', { path: 'gone.ts' }, 'x'),
      ...step('FileRead', { path: 'big.ts' }, 'x'),
      ...step('FileRead', { path: 'small.ts' }, 'x'),
    ];
    const content: Record<string, string> = { 'big.ts': tokensText(50_000, 'big'), 'small.ts': 'export {}' };
    const r = await buildRestoration(archived, [], opts({ budget: 1_500, fileBudget: 1_000, readFile: async (p) => content[p] }), counter);
    expect(r.restoredPaths).toEqual(['small.ts', 'big.ts']);
    expect(r.files).toContain('### small.ts\n```\nexport {}\n```');
    expect(r.tokens).toBeLessThanOrEqual(1_500);
  });

  // mutation: ignoring `earlier` loses a file read before the previous compaction at the next one
  it('re-reads files read before an earlier compaction too, after the ones of this head', async () => {
    const earlier = [user('q0'), ...step('FileRead', { path: 'config/app.env' }, 'x')];
    const archived = [user('q1'), ...step('FileRead', { path: 'src/a.ts' }, 'x'), assistant('ok')];
    const readFile = async (p: string) => `contents of ${p}`;
    expect((await buildRestoration(archived, [], opts({ readFile }), counter)).restoredPaths).toEqual(['src/a.ts']);
    expect((await buildRestoration(archived, [], opts({ readFile, earlier }), counter)).restoredPaths).toEqual(['src/a.ts', 'config/app.env']);
  });

  it('a fence longer than any backtick run in the file', async () => {
    const archived = [user('q'), ...step('FileRead', { path: 'README.md' }, 'x')];
    const r = await buildRestoration(archived, [], opts({ readFile: async () => 'text\n````\ncode\n````' }), counter);
    expect(r.files).toContain('### README.md\n`````\ntext\n````\ncode\n````\n`````');
  });
});
