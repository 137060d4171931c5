import { beforeAll, describe, expect, it } from 'vitest';
import { applyMicro, clearedPlaceholder, MIN_CLEAR_TOKENS, selectMicro, toolKeyArgument } from '../../src/compaction/micro.js';
import { loadTokenizer, TokenCounter } from '../../src/compaction/tokens.js';
import type { Message } from '../../src/llm/messages.js';
import { historyProblems } from '../../src/llm/validate.js';
import { assistant, results, step, user, words } from './helpers.js';
import { makeImage } from '../support/images.js';

let counter: TokenCounter;
beforeAll(async () => {
  await loadTokenizer();
  counter = new TokenCounter();
});

const COMPACTABLE = ['FileRead', 'Bash', 'Grep', 'Glob', 'Recall'];
const big = (salt: string): string => words(300, salt);

/** user, then n Bash steps with big outputs, then a final answer. */
function session(n: number): Message[] {
  const h: Message[] = [user('run the tests')];
  for (let i = 0; i < n; i++) h.push(...step('Bash', { command: `npm test -- ${i}` }, big(`o${i}`)));
  h.push(assistant('done'));
  return h;
}

describe('selectMicro', () => {
  it('keeps the N most recent compactable results and selects the older ones, oldest first', () => {
    const h = session(8);
    const picked = selectMicro(h, { compactableTools: COMPACTABLE, keepRecent: 3 }, counter);
    expect(picked.map((c) => c.summary)).toEqual([0, 1, 2, 3, 4].map((i) => `npm test -- ${i}`));
    expect(picked.every((c) => c.toolName === 'Bash' && c.tokens >= MIN_CLEAR_TOKENS)).toBe(true);
  });

  it('leaves tools that are not compactable alone', () => {
    const h = [user('edit'), ...step('Edit', { path: 'a.ts' }, big('e1')), ...step('Edit', { path: 'b.ts' }, big('e2')), assistant('ok')];
    expect(selectMicro(h, { compactableTools: COMPACTABLE, keepRecent: 0 }, counter)).toEqual([]);
  });

  it('never clears the current step, which the model has not seen yet', () => {
    const h = session(3).slice(0, -1); // ends with the last tool result
    const picked = selectMicro(h, { compactableTools: COMPACTABLE, keepRecent: 0 }, counter);
    expect(picked.map((c) => c.summary)).toEqual(['npm test -- 0', 'npm test -- 1']);
  });

  it('skips pinned pairs, already cleared results and small outputs', () => {
    const [a1, r1] = step('Bash', { command: 'pinned' }, big('p'));
    const [a2, r2] = step('Grep', { pattern: 'tiny' }, 'one match');
    const [a3, r3] = step('Glob', { pattern: '**/*.ts' }, big('g'));
    const cleared: Message = {
      ...r3,
      blocks: r3.blocks.map((b) => (b.type === 'tool_result' ? { ...b, cleared: { archiveId: 'tx_1', originalTokens: 300 } } : b)),
    };
    const h = [user('go'), { ...a1, pinned: true }, r1, a2, r2, a3, cleared, ...step('FileRead', { path: 'x.ts' }, big('f')), assistant('end')];
    const picked = selectMicro(h, { compactableTools: COMPACTABLE, keepRecent: 0 }, counter);
    expect(picked.map((c) => c.summary)).toEqual(['x.ts']);
  });

  it('handles parallel tool calls answered in one message', () => {
    const a = assistant('', [
      { id: 'p1', name: 'FileRead', input: { path: 'a.ts' } },
      { id: 'p2', name: 'FileRead', input: { path: 'b.ts' } },
    ]);
    const r = results([
      { id: 'p1', content: big('a') },
      { id: 'p2', content: big('b') },
    ]);
    const h = [user('read'), a, r, assistant('read both'), user('thanks'), ...step('Bash', { command: 'ls' }, big('l')), assistant('ok')];
    const picked = selectMicro(h, { compactableTools: COMPACTABLE, keepRecent: 1 }, counter);
    expect(picked.map((c) => [c.messageIndex, c.blockIndex])).toEqual([
      [2, 0],
      [2, 1],
    ]);
  });
});

describe('applyMicro', () => {
  it('replaces contents with placeholders, marks the blocks and hands back the originals', () => {
    const h = session(4);
    const before = structuredClone(h);
    const picked = selectMicro(h, { compactableTools: COMPACTABLE, keepRecent: 2 }, counter);
    let n = 0;
    const r = applyMicro(h, picked, counter, () => `tx_${++n}`);
    expect(h).toEqual(before); // the input is untouched
    expect(r.replaced.map((m) => m.id)).toEqual([h[2]!.id, h[4]!.id]);
    expect(r.cleared.map((c) => c.archiveId)).toEqual(['tx_1', 'tx_2']);
    expect(r.cleared[0]!.content).toBe(big('o0'));
    expect(r.cleared[0]).toMatchObject({ messageId: h[2]!.id, toolName: 'Bash', summary: 'npm test -- 0', isError: false });
    const block = r.messages[2]!.blocks[0]!;
    expect(block.type === 'tool_result' && block.cleared).toEqual({ archiveId: 'tx_1', originalTokens: r.cleared[0]!.tokens });
    expect(block.type === 'tool_result' && block.content).toBe(clearedPlaceholder('Bash', 'npm test -- 0', r.cleared[0]!.tokens, 'tx_1'));
    expect(r.messages[6]).toBe(h[6]); // untouched messages are the same objects
    expect(r.savedRaw).toBe(counter.countMessages(h) - counter.countMessages(r.messages));
    expect(r.savedRaw).toBeGreaterThan(400);
    expect(historyProblems(r.messages)).toEqual([]);
  });

  // mutation: clearing a result's images without a word (or keeping their bytes) fails this
  it("drops a cleared result's images and says how to see them again; the count falls by their tokens", async () => {
    const h = session(4);
    const data = (await makeImage(600, 400)).toString('base64');
    const withImage = h.map((m, i) =>
      i === 2
        ? { ...m, blocks: m.blocks.map((b) => (b.type === 'tool_result' ? { ...b, images: [{ type: 'image' as const, mediaType: 'image/png', data }] } : b)) }
        : m,
    );
    const picked = selectMicro(withImage, { compactableTools: COMPACTABLE, keepRecent: 2 }, counter);
    const r = applyMicro(withImage, picked, counter, () => 'tx_img');
    const block = r.messages[2]!.blocks[0]!;
    expect(block.type === 'tool_result' && block.images).toBeUndefined();
    expect(block.type === 'tool_result' && block.content).toMatch(/Recall id tx_img\] \[an image was removed with it; the same Recall id attaches it again\]/);
    expect(r.savedRaw).toBe(counter.countMessages(withImage) - counter.countMessages(r.messages));
    // the image was 600×400/750 = 320 tokens more to clear than the same result without it, less the note's few
    const plain = applyMicro(h, selectMicro(h, { compactableTools: COMPACTABLE, keepRecent: 2 }, counter), counter, () => 'tx_img');
    expect(r.savedRaw - plain.savedRaw).toBeGreaterThan(280);
    expect(r.savedRaw - plain.savedRaw).toBeLessThan(320);
  });

  // mutation: leaving old images in place (no image candidates), or clearing the last turns' ones, fails this
  it("replaces images older than the person's last turns by a placeholder naming a Recall id; the text stays", async () => {
    const data = (await makeImage(600, 400)).toString('base64');
    const img = { type: 'image' as const, mediaType: 'image/png', data };
    const withImg = (m: Message): Message => ({ ...m, blocks: [...m.blocks, img] });
    const [a1, r1] = step('mcp__shots__take', { name: 'home' }, 'a screenshot');
    const shot: Message = { ...r1, blocks: r1.blocks.map((b) => (b.type === 'tool_result' ? { ...b, images: [img] } : b)) };
    const h = [
      withImg(user('look at this')),
      assistant('seen'),
      user('and take one'),
      a1,
      shot,
      assistant('ok'),
      withImg(user('now this')),
      assistant('yes'),
      user('next'),
      assistant('fine'),
    ];
    const picked = selectMicro(h, { compactableTools: COMPACTABLE, keepRecent: 5 }, counter);
    expect(picked.map((c) => [c.messageIndex, c.toolUseId.startsWith('image:') ? 'image' : c.toolName, c.imagesOnly])).toEqual([
      [0, 'image', true],
      [4, 'mcp__shots__take', true],
    ]);
    let n = 0;
    const r = applyMicro(h, picked, counter, () => `tx_${++n}`);
    expect(r.messages[0]!.blocks).toEqual([
      h[0]!.blocks[0],
      { type: 'text', text: '[image (PNG 600×400) removed to save context — Recall id tx_1 attaches it again]' },
    ]);
    const res = r.messages[4]!.blocks[0]!;
    expect(res.type === 'tool_result' && res.images).toBeUndefined();
    expect(res.type === 'tool_result' && res.content).toBe('a screenshot\n[image (PNG 600×400) removed to save context — Recall id tx_2 attaches it again]');
    expect(r.messages[6]).toBe(h[6]); // the image of the last two turns stays
    expect(r.cleared.map((c) => [c.archiveId, c.toolUseId])).toEqual([
      ['tx_1', 'image:1'],
      ['tx_2', r1.blocks[0]!.type === 'tool_result' ? r1.blocks[0]!.toolUseId : ''],
    ]);
    expect(r.savedRaw).toBe(counter.countMessages(h) - counter.countMessages(r.messages));
    expect(historyProblems(r.messages)).toEqual([]);
  });

  it('writes the placeholder the model can act on', () => {
    expect(clearedPlaceholder('Bash', 'npm test', 1234, 'tx_abc')).toBe(
      '[Bash output for `npm test` cleared to save context (1,234 tokens) — Recall id tx_abc]',
    );
    expect(clearedPlaceholder('Glob', '', 99, 'tx_1')).toBe('[Glob output cleared to save context (99 tokens) — Recall id tx_1]');
  });
});

describe('toolKeyArgument', () => {
  it('picks the key argument and keeps it to one short line', () => {
    expect(toolKeyArgument('Bash', { command: 'npm\n  test' })).toBe('npm test');
    expect(toolKeyArgument('FileRead', { path: 'src/a.ts', offset: 3 })).toBe('src/a.ts');
    expect(toolKeyArgument('X', { other: 1 })).toBe('{"other":1}');
    expect(toolKeyArgument('X', { command: 'x'.repeat(200) })).toHaveLength(80);
  });
});
