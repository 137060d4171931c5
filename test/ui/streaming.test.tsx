import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { emptyUsage } from '../../src/llm/messages.js';
import { BlockSplitter } from '../../src/ui/stream-blocks.js';
import { FakeController, msg, renderApp, text, waitFor } from './helpers.js';

afterEach(() => cleanup());

function splits(chunks: string[]): number[] {
  const s = new BlockSplitter();
  let acc = '';
  return chunks.map((c) => s.feed((acc += c)));
}

describe('finding finished Markdown blocks in a stream', () => {
  it('cuts after a blank line that follows text', () => {
    expect(splits(['Intro', ' text.\n', '\n', '- item\n'])).toEqual([0, 0, 13, 13]);
  });

  it('never cuts inside a fenced code block', () => {
    const s = new BlockSplitter();
    const t = 'Code:\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\nAfter';
    // After "Code:\n\n" (7), then not until the blank line after the closing fence.
    expect(s.feed(t.slice(0, 20))).toBe(7);
    expect(s.feed(t.slice(0, t.indexOf('const b')))).toBe(7);
    expect(s.feed(t)).toBe(t.indexOf('After'));
  });

  it('a longer fence is not closed by a shorter one', () => {
    const s = new BlockSplitter();
    const t = '````\n```\n\ninside\n````\n\nout';
    expect(s.feed(t)).toBe(t.indexOf('out'));
    const u = new BlockSplitter();
    expect(u.feed('````\n```\n\ninside\n')).toBe(0);
  });
});

describe('a reply printed block by block while it streams', () => {
  it('prints finished blocks formatted, keeps only the current one live, and never prints twice', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'turn_start', turnId: 't' }, { type: 'request_start', step: 1, attempt: 1 });
    c.emit({ type: 'text_delta', text: 'First **paragraph** here.\n' }, { type: 'text_delta', text: '\nSecond ' });
    // The first block is already rendered as Markdown (no ** left) while the second streams raw.
    await app.waitForText('First paragraph here.');
    await app.waitForText('Second');
    c.emit({ type: 'text_delta', text: 'one **bold**.' });
    await app.waitForText('Second one **bold**.');
    const full = 'First **paragraph** here.\n\nSecond one **bold**.';
    c.emit({ type: 'message', message: msg('assistant', [text(full)]) });
    await app.waitForText('Second one bold.');
    await waitFor(() => !app.frame().includes('**'), app.frame);
    const f = app.frame();
    expect(f.split('First paragraph here.').length - 1).toBe(1);
    expect(f.split('Second one bold.').length - 1).toBe(1);
    // One reply marker for the whole reply.
    expect(f.split('●').length - 1).toBe(1);
  });

  it('an interrupted reply keeps what was printed and marks the end', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'turn_start', turnId: 't' }, { type: 'text_delta', text: 'Done part.\n\nHalf a sen' });
    await app.waitForText('Half a sen');
    c.emit({ type: 'turn_end', reason: 'aborted', steps: 1, usage: emptyUsage(), text: '' });
    await app.waitForText('■ interrupted');
    const f = app.frame();
    expect(f.indexOf('Done part.')).toBeLessThan(f.indexOf('Half a sen'));
    expect(f.indexOf('Half a sen')).toBeLessThan(f.indexOf('■ interrupted'));
  });

  it('a retried call after printed blocks says the reply starts over', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'turn_start', turnId: 't' }, { type: 'request_start', step: 1, attempt: 1 }, { type: 'text_delta', text: 'Para one.\n\nPara' });
    await app.waitForText('Para one.');
    c.emit({ type: 'request_start', step: 1, attempt: 2 });
    await app.waitForText('The reply above was cut off; the model starts over');
    c.emit({ type: 'text_delta', text: 'Fresh start.' });
    await app.waitForText('Fresh start.');
  });

  it('when the final text differs from what streamed, the final text is printed whole', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'turn_start', turnId: 't' }, { type: 'text_delta', text: 'Streamed A.\n\nB' });
    await app.waitForText('Streamed A.');
    c.emit({ type: 'message', message: msg('assistant', [text('Different final text.')]) });
    await app.waitForText('Different final text.');
  });
});
