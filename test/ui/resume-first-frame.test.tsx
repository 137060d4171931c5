import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/llm/messages.js';
import { BACKFILL_ROWS, DeferredItems, estimatedRows, newestScreenfulStart, PROMPT_AREA_ROWS } from '../../src/ui/screenful.js';
import type { TranscriptItem } from '../../src/ui/transcript.js';
import { messagesToItems } from '../../src/ui/transcript.js';
import { FakeController, msg, renderAppSized, text, tick } from './helpers.js';
import { expectInOrder } from '../support/inOrder.js';

// Fresh modules: its first frame is drawn before the Markdown renderer has loaded (vitest.config.ts).
// A resumed long session prints its newest screenful on the first frame and the older items
// right after, in order, so the scrollback ends up holding the whole transcript.

function conversation(turns: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < turns; i++) out.push(msg('user', [text(`question number ${i}`)]), msg('assistant', [text(`answer number ${i}`)]));
  return out;
}

const written = (frames: string[]): string => frames.join('');

describe('resuming a long session', () => {
  it('prints the newest screenful first, then the older items before it', async () => {
    const r = renderAppSized(new FakeController(undefined, conversation(300)), 80, 24);
    const first = written(r.sized.frames);
    expect(first).toContain('answer number 299');
    expect(first).not.toContain('question number 0\n');
    expect(first).not.toContain('answer number 150');
    await tick(5);
    const reprint = written(r.sized.frames).slice(first.length);
    // the screen is cleared, the scrollback (the person's shell output) is not
    expect(reprint).toContain('\u001b[2J');
    expect(reprint).not.toContain('\u001b[3J');
    // debug mode writes the whole static output each frame: the last frame holds the reprint
    const last = r.sized.frames[r.sized.frames.length - 1]!;
    expectInOrder(last, ['question number 0\n', 'answer number 150', 'answer number 299']);
    r.unmount();
  });

  it('prints a short session whole on the first frame', async () => {
    const r = renderAppSized(new FakeController(undefined, conversation(5)), 80, 24);
    const first = written(r.sized.frames);
    expect(first).toContain('question number 0');
    expect(first).toContain('answer number 4');
    await tick(5);
    expect(written(r.sized.frames)).not.toContain('\u001b[2J');
    r.unmount();
  });

  it('the newest screenful fills the rows above the prompt, and not one item more', () => {
    const items = messagesToItems(conversation(300));
    const screen = { rows: 24, columns: 80 };
    const start = newestScreenfulStart(items, screen);
    expect(start).toBeGreaterThan(0);
    const rowsOf = (its: TranscriptItem[]): number => its.reduce((n, it) => n + estimatedRows(it, screen), 0);
    const shown = items.slice(start);
    expect(rowsOf(shown)).toBeGreaterThanOrEqual(screen.rows - PROMPT_AREA_ROWS);
    expect(rowsOf(shown.slice(1))).toBeLessThan(screen.rows - PROMPT_AREA_ROWS);
  });

  it('reprints no more than a scrollback keeps, and says how many older items are left out', () => {
    const items = messagesToItems(conversation(3_000));
    const screen = { rows: 24, columns: 80 };
    let printed: { older: TranscriptItem[]; omitted: number } | undefined;
    const deferred = new DeferredItems((older, omitted) => (printed = { older, omitted }));
    deferred.screen = screen;
    const first = deferred.split(items);
    deferred.flush();
    expect(printed).toBeDefined();
    const { older, omitted } = printed!;
    expect(omitted).toBeGreaterThan(0);
    expect(omitted + older.length + first.length).toBe(items.length);
    const rows = older.reduce((n, it) => n + estimatedRows(it, screen), 0);
    expect(rows).toBeLessThanOrEqual(BACKFILL_ROWS);
    expect(rows).toBeGreaterThan(BACKFILL_ROWS - 10);
    // the reprint ends where the first frame begins
    expect(items.indexOf(older[older.length - 1]!) + 1).toBe(items.indexOf(first[0]!));
  });
});
