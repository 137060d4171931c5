import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { Message } from '../../src/llm/messages.js';
import { unansweredReply } from '../../src/session/repair.js';
import { noReplyItem } from '../../src/ui/transcript.js';
import { FakeController, KEYS, renderApp, session, waitFor } from './helpers.js';

// A turn interrupted before the model wrote anything (issue 26): Esc puts the prompt back in the
// input (issue 30: when the session says it took it out of the conversation, prompt_returned),
// and the empty reply is not drawn as a model reply, live or after a resume.

afterEach(() => cleanup());

const user = (text: string): Message => ({ id: `u-${text}`, role: 'user', kind: 'normal', createdAt: 1, blocks: [{ type: 'text', text }] });
const emptyInterrupted = (): Message => ({ id: 'a-empty', role: 'assistant', kind: 'normal', createdAt: 2, interrupted: true, blocks: [] });

describe('a turn interrupted before any reply', () => {
  it('Esc puts the prompt back in the input, and no model reply is drawn', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.press(...'explain the build'.split(''), KEYS.enter);
    await waitFor(() => c.submitted.length === 1, app.frame);
    c.emit({ type: 'busy', busy: true }, { type: 'turn_start', turnId: 't' }, { type: 'message', message: user('explain the build') });
    await app.waitForText('explain the build');
    await app.press(KEYS.esc);
    await waitFor(() => c.interrupts === 1, app.frame);
    // Esc asks for the prompt back; the session decides (it takes it out of the conversation) and says so
    expect(c.takeBacks).toEqual([true]);
    c.emit(
      { type: 'message', message: emptyInterrupted() },
      { type: 'turn_end', reason: 'aborted', steps: 0, usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, text: '' },
      { type: 'prompt_returned', text: 'explain the build', message: 'Your message is back in the input and out of the conversation' },
      { type: 'busy', busy: false },
    );
    await app.waitForText('❯ explain the build');
    await app.waitForText('Interrupted before the model replied');
    expect(app.frame()).toContain('back in the input');
    // no paste in it: saving one is not offered (mutation: the "pastes back" note's check flipped)
    expect(app.frame()).not.toContain('ctrl+s: save the pasted text');
    expect(app.frame()).not.toContain('●');
    expect(app.frame()).not.toContain('■ interrupted');
    // the prompt is in the input, ready to send again
    await app.press(KEYS.enter);
    await waitFor(() => c.submitted.length === 2, app.frame);
    expect(c.submitted[1]).toBe('explain the build');
  });

  it('Esc after the model started to answer does not put the prompt back', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.press(...'explain the tests'.split(''), KEYS.enter);
    await waitFor(() => c.submitted.length === 1, app.frame);
    c.emit({ type: 'busy', busy: true }, { type: 'turn_start', turnId: 't' }, { type: 'text_delta', text: 'The tests ' });
    await app.press(KEYS.esc);
    await waitFor(() => c.interrupts === 1, app.frame);
    expect(app.frame()).not.toMatch(/❯ explain the tests\s*│/);
  });

  it('after a resume, an unanswered prompt and an empty interrupted reply are notices, not model replies', async () => {
    const c = new FakeController(session(), [user('first question'), unansweredReply(), user('second question'), emptyInterrupted()]);
    const app = renderApp(c);
    await app.waitForText('second question');
    const f = app.frame();
    expect(f.match(/Interrupted before the model replied/g)).toHaveLength(2);
    expect(f).not.toContain('No reply: the turn');
    expect(f).not.toContain('●');
  });
  it("a reply cut off after only white space is no reply either; one with words is the model's", () => {
    const cut = (text: string): Message => ({ ...emptyInterrupted(), blocks: [{ type: 'text', text }] });
    expect(noReplyItem(cut('\n\n  '))).toMatchObject({ kind: 'notice', text: 'Interrupted before the model replied' });
    expect(noReplyItem(cut('The build runs'))).toBeNull();
    expect(noReplyItem({ ...cut(''), interrupted: false })).toBeNull();
  });
});
