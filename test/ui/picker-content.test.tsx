import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { SessionListItem } from '../../src/protocol/views.js';
import { FakeController, KEYS, renderApp, waitFor } from './helpers.js';

afterEach(() => cleanup());

// The --resume picker filtered by title, directory and id only: a conversation could not be
// found by what was said in it. Typing now also matches the sessions' messages (full-text).

const now = Date.now();
const sessions: SessionListItem[] = [
  { id: 's_aaa00000000aaa1', title: 'Fix login bug', cwd: '/work/web', updatedAt: now - 1_000, messageCount: 4, contextTokens: null },
  { id: 's_bbb00000000bbb1', title: 'Refactor the store', cwd: '/work/api', updatedAt: now - 2_000, messageCount: 9, contextTokens: null },
];

class SearchingController extends FakeController {
  readonly queries: string[] = [];
  searchSessions(query: string): string[] {
    this.queries.push(query);
    return query.includes('heron') ? ['s_bbb00000000bbb1'] : [];
  }
}

describe('the session picker filter', () => {
  it('matches what was said in a session, not only its title', async () => {
    const c = new SearchingController();
    const app = renderApp(c);
    c.emit({ type: 'command_output', command: '/resume', output: { kind: 'picker', sessions } });
    await app.waitForText('Resume a session');
    await app.press(...'heron'.split(''));
    await waitFor(() => !app.frame().includes('Fix login bug'), app.frame);
    expect(app.frame()).toContain('Refactor the store');
    expect(c.queries.at(-1)).toBe('heron');
    await app.press(KEYS.enter);
    await waitFor(() => c.resumed.length === 1, app.frame);
    expect(c.resumed).toEqual(['s_bbb00000000bbb1']);
  });

  it('a title match still shows without a content match', async () => {
    const c = new SearchingController();
    const app = renderApp(c);
    c.emit({ type: 'command_output', command: '/resume', output: { kind: 'picker', sessions } });
    await app.waitForText('Resume a session');
    await app.press(...'login'.split(''));
    await waitFor(() => !app.frame().includes('Refactor the store'), app.frame);
    expect(app.frame()).toContain('Fix login bug');
  });
});
