import { describe, expect, it } from 'vitest';
import { cutKind, partitionHead, selectSplit } from '../../src/compaction/split.js';
import type { Message } from '../../src/llm/messages.js';
import { assistant, results, step, user } from './helpers.js';

/** Each message costs its text length: easy budgets. */
const len = (m: Message): number => m.blocks.reduce((n, b) => n + (b.type === 'text' ? b.text.length : b.type === 'tool_result' ? b.content.length : 10), 0);

/** turn i: user "u{i}" (10 chars), a tool step, an answer. */
function turns(n: number): Message[] {
  const h: Message[] = [];
  for (let i = 0; i < n; i++) h.push(user(`u${i}`.padEnd(10, '.')), ...step('Bash', { command: `c${i}` }, 'x'.repeat(20)), assistant('a'.repeat(10)));
  return h;
}
// each turn: 10 + 10 + 20 + 10 = 50

describe('cut points', () => {
  it('cuts at a person turn or between complete tool pairs, never inside a pair', () => {
    const h = turns(2);
    expect(h.map((_, i) => cutKind(h, i) ?? '-')).toEqual(['-', '-', '-', 'step', 'turn', '-', '-', 'step']);
  });

  it('a meta message is a step cut; a checkpoint is not a turn', () => {
    const h = [user('cp', { kind: 'checkpoint' }), assistant('x'), user('continue', { kind: 'meta' }), assistant('y')];
    expect(cutKind(h, 2)).toBe('step');
    expect(cutKind(h, 1)).toBe('step'); // an assistant after a non-turn user message
  });
});

describe('selectSplit', () => {
  it('keeps the last K turns when they fit the budget', () => {
    const h = turns(5);
    const s = selectSplit(h, { tailTurns: 3, tailTokens: 1_000 }, len);
    expect(s).toMatchObject({ index: 8, kind: 'turn', turns: 3, tailTokens: 150 });
  });

  it('keeps fewer turns when K turns exceed the budget', () => {
    const s = selectSplit(turns(5), { tailTurns: 3, tailTokens: 120 }, len);
    expect(s).toMatchObject({ index: 12, turns: 2, tailTokens: 100 });
  });

  it('cuts inside one long turn at a step boundary when the last turn alone is too big', () => {
    const h = [
      user('big job'),
      ...step('Bash', { command: '1' }, 'x'.repeat(100)),
      ...step('Bash', { command: '2' }, 'x'.repeat(100)),
      ...step('Bash', { command: '3' }, 'x'.repeat(30)),
      assistant('done'),
    ];
    const s = selectSplit(h, { tailTurns: 3, tailTokens: 60 }, len);
    expect(s.kind).toBe('step');
    expect(s.index).toBe(5); // the third step's assistant message
    expect(s.tailTokens).toBeLessThanOrEqual(60);
  });

  it('keeps the current step even when it exceeds the budget', () => {
    const h = [user('go'), ...step('Bash', { command: '1' }, 'x'.repeat(100)), ...step('Bash', { command: '2' }, 'x'.repeat(500))];
    const s = selectSplit(h, { tailTurns: 2, tailTokens: 50 }, len);
    expect(s.index).toBe(3);
    expect(h.slice(s.index)[0]!.role).toBe('assistant');
  });

  it('tailTurns 0 keeps the minimum: the last turn start or step', () => {
    const h = turns(3);
    expect(selectSplit(h, { tailTurns: 0, tailTokens: 10_000 }, len).index).toBe(11);
    const open = [...turns(2), user('new question')];
    expect(selectSplit(open, { tailTurns: 0, tailTokens: 0 }, len).index).toBe(8);
  });

  it('nothing to cut in a single message history', () => {
    expect(selectSplit([user('hi')], { tailTurns: 3, tailTokens: 100 }, len)).toMatchObject({ index: 0, kind: 'none' });
  });

  it('parallel tool calls stay with their results', () => {
    const a = assistant('', [
      { id: 'p1', name: 'Grep', input: {} },
      { id: 'p2', name: 'Grep', input: {} },
    ]);
    const r = results([
      { id: 'p1', content: 'x'.repeat(200) },
      { id: 'p2', content: 'y'.repeat(200) },
    ]);
    const h = [user('find'), a, r, assistant('found'), user('next'), assistant('ok')];
    const s = selectSplit(h, { tailTurns: 1, tailTokens: 30 }, len);
    expect(s.index).toBe(4);
  });
});

describe('partitionHead', () => {
  it('separates the previous checkpoint, pinned units (with their tool partners) and what to summarize', () => {
    const cp = user('old summary', { kind: 'checkpoint' });
    const pinnedUser = user('always use pnpm', { pinned: true });
    const [a1, r1] = step('Bash', { command: 'pnpm i' }, 'ok');
    const pinnedCall = { ...a1, pinned: true };
    const rest = assistant('installed');
    const head = [cp, pinnedUser, pinnedCall, r1, rest, user('next')];
    const p = partitionHead(head);
    expect(p.previous).toBe(cp);
    expect(p.pinnedUnits).toEqual([[pinnedUser, pinnedCall, r1]]);
    expect(p.summarize.map((m) => m.id)).toEqual([rest.id, head[5]!.id]);
    expect(p.archived.map((m) => m.id)).toEqual([cp.id, rest.id, head[5]!.id]);
  });

  it('a pinned tool result brings its call along', () => {
    const [a, r] = step('FileRead', { path: 'a' }, 'content');
    const head = [user('q'), a, { ...r, pinned: true }, assistant('x'), user('y')];
    const p = partitionHead(head);
    expect(p.pinnedUnits).toEqual([[a, { ...r, pinned: true }]]);
    expect(p.previous).toBeUndefined();
  });
});
