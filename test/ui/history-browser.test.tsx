import './force-color.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { HistoryHit, HistoryPage } from '../../src/protocol/views.js';
import { FakeController, KEYS, renderAppSized, waitFor } from './helpers.js';

afterEach(() => cleanup());

const MINUTE = 60_000;
/** 23 archived items match "schema": three pages of 10. */
const hit = (n: number): HistoryHit => ({
  id: `tx_${String(n).padStart(4, '0')}`,
  label: n % 2 ? 'Bash output `npm run migrate`' : 'assistant message',
  snippet: `…step ${n}: the «schema» of table users_${n} gains a column…`,
  createdAt: Date.now() - (30 + n) * MINUTE,
});
const ALL = Array.from({ length: 23 }, (_, i) => hit(i + 1));
const pageOf = (query: string, page: number): HistoryPage => {
  const hits = ALL.slice((page - 1) * 10, page * 10);
  return { query, page, pageSize: 10, hits, hasMore: page * 10 < ALL.length };
};

async function openBrowser() {
  const c = new FakeController();
  c.archive = pageOf;
  const app = renderAppSized(c, 100, 40);
  c.emit({ type: 'command_output', command: '/history schema', output: { kind: 'history', result: pageOf('schema', 1) } });
  await app.waitForText('Archive: “schema”');
  return { c, app };
}

describe('the /history browser', () => {
  it('shows a page of results: what each was, its age, its id and the snippet, in place of the prompt', async () => {
    const { app } = await openBrowser();
    const f = app.frame();
    expect(f).toContain('results 1–10 of more · page 1');
    expect(f).toContain('❯ 1. Bash output `npm run migrate` · 31m ago · tx_0001');
    expect(f).toContain('…step 1: the schema of table users_1 gains a column…');
    expect(f).toContain('10. assistant message');
    expect(f).toContain('↑↓ choose · enter open · → next page · esc close');
    expect(f).not.toContain('Ask for a change');
  });

  it('a short terminal shows a window of the page around the selection', async () => {
    const c = new FakeController();
    const app = renderAppSized(c, 80, 20);
    c.emit({ type: 'command_output', command: '/history schema', output: { kind: 'history', result: pageOf('schema', 1) } });
    await app.waitForText('Archive: “schema”');
    expect(app.frame()).toContain('↓ 5 more on this page');
    expect(app.frame()).not.toContain('6. ');
    await app.press(...Array<string>(7).fill(KEYS.down));
    await app.waitForText('❯ 8. ');
    expect(app.frame()).toMatch(/↑ \d more on this page/);
    expect(app.frame().split('\n').length).toBeLessThanOrEqual(20);
  });

  it('marks the matched words', async () => {
    const { app } = await openBrowser();
    // bold on, the word, bold off: the « » markers become emphasis, never text
    expect(app.rawFrame()).toMatch(/\u001b\[1m(?:\u001b\[[\d;]*m)*schema/);
    expect(app.frame()).not.toContain('«');
  });

  it('turns pages with → and ←, asking the controller, and says where it is', async () => {
    const { c, app } = await openBrowser();
    await app.press(KEYS.right);
    await app.waitForText('results 11–20 of more · page 2');
    expect(app.frame()).toContain('❯ 11. Bash output');
    expect(app.frame()).toContain('← previous page · → next page');
    await app.press(KEYS.right);
    await app.waitForText('results 21–23 · page 3');
    expect(app.frame()).not.toContain('→ next page');
    await app.press(KEYS.right); // no page 4: nothing happens
    await app.press(KEYS.left);
    await app.waitForText('page 2');
    expect(c.searches).toEqual([
      ['schema', 2],
      ['schema', 3],
      ['schema', 2],
    ]);
  });

  it('↓ past the last row turns to the next page, ↑ above the first turns back to its last row', async () => {
    const { app } = await openBrowser();
    await app.press(...Array<string>(10).fill(KEYS.down));
    await app.waitForText('❯ 11. ');
    await app.press(KEYS.up);
    await app.waitForText('❯ 10. ');
    expect(app.frame()).toContain('page 1');
  });

  it('Enter opens the chosen item (as /history open) and closes the browser', async () => {
    const { c, app } = await openBrowser();
    await app.press(KEYS.down, KEYS.down, KEYS.enter);
    await waitFor(() => c.submitted.length === 1, app.frame);
    expect(c.submitted).toEqual(['/history open tx_0003']);
    await app.waitForText('Ask for a change');
    expect(app.frame()).not.toContain('Archive: “schema”');
  });

  it('Esc closes it without opening anything', async () => {
    const { c, app } = await openBrowser();
    await app.press(KEYS.esc);
    await app.waitForText('Ask for a change');
    expect(app.frame()).not.toContain('Archive:');
    expect(c.submitted).toEqual([]);
  });

  it('a failed search keeps the page and says why', async () => {
    const { c, app } = await openBrowser();
    c.archive = () => {
      throw new Error('database is locked');
    };
    await app.press(KEYS.right);
    await app.waitForText('Could not search the archive: database is locked');
    expect(app.frame()).toContain('page 1');
  });
});
