import { describe, expect, it } from 'vitest';
import { toolUses, type Message } from '../../src/llm/messages.js';
import { shellNote } from '../../src/session/shellNote.js';
import { endsUnanswered, INTERRUPTED_TOOL_RESULT, repairHistory, UNANSWERED_PROMPT_REPLY } from '../../src/session/repair.js';

// The repair that runs when a stored session is loaded: whatever left the history invalid
// for the provider (a crash, two writers at once, an old database), the result is a history
// both APIs accept, and no stored message is dropped.

let n = 0;
const id = (p: string): string => `${p}${++n}`;
const prompt = (text: string): Message => ({ id: id('u'), role: 'user', kind: 'normal', createdAt: n, blocks: [{ type: 'text', text }] });
const reply = (text: string): Message => ({ id: id('a'), role: 'assistant', kind: 'normal', createdAt: n, blocks: [{ type: 'text', text }] });
const call = (useId: string): Message => ({
  id: id('a'),
  role: 'assistant',
  kind: 'normal',
  createdAt: n,
  blocks: [{ type: 'tool_use', id: useId, name: 'Bash', input: { command: 'ls' } }],
});
const result = (...useIds: string[]): Message => ({
  id: id('r'),
  role: 'user',
  kind: 'normal',
  createdAt: n,
  blocks: useIds.map((u) => ({ type: 'tool_result' as const, toolUseId: u, content: `output of ${u}`, isError: false })),
});

/** The rules both providers enforce: every call answered by the very next message, every result answering a call of the message before it, no two prompts in a row. */
function assertValid(history: readonly Message[]): void {
  history.forEach((m, i) => {
    const prev = history[i - 1];
    const calls = prev?.role === 'assistant' ? toolUses(prev).map((u) => u.id) : [];
    if (m.role === 'user') {
      const results = m.blocks.flatMap((b) => (b.type === 'tool_result' ? [b.toolUseId] : []));
      expect(results.sort()).toEqual([...calls].sort());
      if (prev?.role === 'user' && results.length === 0) {
        const isPrompt = (x: Message): boolean => x.blocks.every((b) => b.type === 'text' && !b.text.startsWith('[Result of tool call'));
        expect(isPrompt(prev) && isPrompt(m), 'two prompts in a row').toBe(false);
      }
    } else {
      expect(calls, 'an assistant message after unanswered calls').toEqual([]);
    }
  });
  const last = history.at(-1);
  if (last?.role === 'assistant') expect(toolUses(last)).toEqual([]);
}

describe('repairHistory', () => {
  it('leaves a valid history alone', () => {
    const h = [prompt('hi'), call('t1'), result('t1'), reply('done'), prompt('more'), reply('ok')];
    expect(repairHistory(h)).toBeUndefined();
  });

  it('closes calls left open at the end (a crash) as interrupted', () => {
    const h = [prompt('hi'), call('t1')];
    const r = repairHistory(h)!;
    assertValid(r.messages);
    expect(r.added).toHaveLength(1);
    expect(r.added[0]!.blocks).toEqual([{ type: 'tool_result', toolUseId: 't1', content: INTERRUPTED_TOOL_RESULT, isError: true, outcome: 'interrupted' }]);
    expect(r.notes.join()).toContain('1 tool call without a result closed as interrupted');
  });

  it('repairs what two writers at once leave: two calls in a row, results out of order, prompts piled up', () => {
    const p1 = prompt('run the tests');
    const p2 = prompt('run the linter');
    const h = [p1, p2, call('A'), call('B'), result('A'), result('B'), prompt('and now?')];
    const r = repairHistory(h)!;
    assertValid(r.messages);
    // nothing stored is dropped, and the order of the stored messages is kept
    const kept = r.messages.filter((m) => h.some((o) => o.id === m.id)).map((m) => m.id);
    expect(kept).toEqual(h.map((m) => m.id));
    // the prompt that got no reply is marked, not merged into the next
    expect(r.messages[1]!.blocks).toEqual([{ type: 'text', text: UNANSWERED_PROMPT_REPLY }]);
    // the result of A, which now follows B's call, is kept as text
    const replacedA = r.replaced.find((m) => m.blocks.some((b) => b.type === 'text' && b.text.includes('output of A')));
    expect(replacedA).toBeDefined();
    expect(r.notes).toHaveLength(3);
  });

  it('keeps an orphan result (its call is missing) as text and a duplicate result once', () => {
    const h = [prompt('hi'), call('t1'), result('t1', 't1'), reply('ok'), result('ghost')];
    const r = repairHistory(h)!;
    assertValid(r.messages);
    expect(r.replaced).toHaveLength(2);
    expect(JSON.stringify(r.messages)).toContain('output of ghost');
  });

  it('tells when the history ends with a prompt that got no reply', () => {
    expect(endsUnanswered([prompt('a')])).toBe(true);
    expect(endsUnanswered([prompt('a'), reply('b')])).toBe(false);
    expect(endsUnanswered([call('x'), result('x')])).toBe(false);
  });

  it('does not take a `!command` note for an unanswered prompt: it expects no reply', () => {
    // the note as the session appends it (its origin says what it is); mutation: isShellNote always false fails this
    const note = shellNote({ command: 'ls', output: 'a.txt', isError: false }, 'done');
    expect(endsUnanswered([prompt('a'), reply('b'), note])).toBe(false);
    expect(repairHistory([prompt('a'), reply('b'), note, prompt('c')])).toBeUndefined();
  });
});
