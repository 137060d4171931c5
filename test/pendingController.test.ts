import { describe, expect, it } from 'vitest';
import { PendingController, type PendingStart } from '../src/pendingController.js';
import type { Event } from '../src/protocol/events.js';
import type { ContextUsageView, SessionView } from '../src/protocol/views.js';
import type { UiController } from '../src/ui/controller.js';

// The controller a fresh session's first frame is drawn with (interactive.ts): what the person does
// before the session is open reaches it in order once it is, and a session that cannot be built ends the app.

const START: PendingStart = {
  view: { id: '', title: null, model: 'claude-sonnet-4-6', provider: 'anthropic', cwd: '/p', permissionMode: 'ask' },
  contextWindow: 200_000,
  history: ['earlier prompt'],
  editorEnv: () => ({ EDITOR: 'vi' }),
};

const USAGE: ContextUsageView = {
  tokens: 3_000,
  contextWindow: 200_000,
  effectiveWindow: 180_000,
  percentLeft: 98,
  state: 'ok',
  autoCompactAtPercent: 92,
  autoCompactEnabled: true,
};

/** A session's controller that records what reaches it, and lets the test send its events. */
function recording() {
  const calls: string[] = [];
  const listeners = new Set<(ev: Event) => void>();
  const session: SessionView = { ...START.view, id: 's_open' };
  const controller: UiController = {
    session: () => session,
    initialTranscript: () => [],
    subscribe: (l) => (listeners.add(l), () => listeners.delete(l)),
    submit: (text) => void calls.push(`submit ${text}`),
    interrupt: () => (calls.push('interrupt'), true),
    cancelCompaction: () => false,
    commands: () => [{ name: 'explain', description: 'Explain a file' }],
    promptHistory: () => ['earlier prompt', 'later one'],
    resume: async (id) => void calls.push(`resume ${id}`),
    contextUsage: () => USAGE,
    searchArchive: (query, page) => ({ query, page, pageSize: 10, hits: [], hasMore: false }),
    completePath: async (q) => [`${q}.ts`],
    viewOf: () => undefined,
    press: (key) => (calls.push(`press ${key}`), true),
    cyclePermissionMode: () => void calls.push('cycle'),
    exit: async () => void calls.push('exit'),
  };
  return { controller, calls, send: (ev: Event) => listeners.forEach((l) => l(ev)), listeners };
}

/** A controller before its session opens, with what an app subscribed to it has been told. */
function watched(): { pending: PendingController; seen: Event[] } {
  const pending = new PendingController(START);
  const seen: Event[] = [];
  pending.subscribe((ev) => seen.push(ev));
  return { pending, seen };
}

describe('PendingController', () => {
  it("answers the first frame from the configuration: no session id, the gauge still counting, the history file's prompts", () => {
    const pending = new PendingController(START);
    expect(pending.session()).toEqual(START.view);
    expect(pending.contextUsage()).toMatchObject({ rough: true, contextWindow: 200_000 });
    expect(pending.promptHistory()).toEqual(['earlier prompt']);
    expect(pending.initialTranscript()).toEqual([]);
    expect(pending.commands()).toEqual([]);
    expect(pending.editorEnv()).toEqual({ EDITOR: 'vi' });
  });

  it('hands what waited to the session in order once it opens, and the app its events from then on', async () => {
    const { pending, seen } = watched();
    pending.submit('first');
    pending.cyclePermissionMode();
    pending.submit('second');
    const paths = pending.completePath('src/a');
    const real = recording();
    expect(real.calls).toEqual([]);
    // while prompts wait, the app's activity line says the session is opening
    expect(seen).toEqual([
      { type: 'busy', busy: true },
      { type: 'activity', label: 'Opening the session', done: false },
    ]);
    pending.ready(real.controller);
    // the prompts go last, in order, once the rest has reached the session
    expect(real.calls).toEqual(['cycle', 'submit first', 'submit second']);
    // the footer is told the open session's figures (its handler reads session() again), and the opening ends
    expect(seen.slice(2)).toEqual([
      { type: 'context', usage: USAGE },
      { type: 'busy', busy: false },
      { type: 'activity', label: 'Opening the session', done: true },
    ]);
    expect(pending.session().id).toBe('s_open');
    expect(pending.commands().map((c) => c.name)).toEqual(['explain']);
    expect(await paths).toEqual(['src/a.ts']);
    real.send({ type: 'notice', level: 'info', text: 'hello' });
    expect(seen.at(-1)).toEqual({ type: 'notice', level: 'info', text: 'hello' });
    // after it opened, calls go straight through
    pending.submit('third');
    expect(pending.interrupt()).toBe(true);
    expect(real.calls.slice(3)).toEqual(['submit third', 'interrupt']);
  });

  it('unsubscribes the app from the open session too', () => {
    const pending = new PendingController(START);
    const off = pending.subscribe(() => {});
    const real = recording();
    pending.ready(real.controller);
    expect(real.listeners.size).toBe(1);
    off();
    expect(real.listeners.size).toBe(0);
  });

  it('waits for the session to open before it exits, then exits it', async () => {
    const pending = new PendingController(START);
    const real = recording();
    let exited = false;
    const exiting = pending.exit().then(() => (exited = true));
    await new Promise((r) => setImmediate(r));
    expect(exited).toBe(false);
    pending.ready(real.controller);
    await exiting;
    expect(real.calls).toEqual(['exit']);
  });

  it('ends the app when the session cannot be built, and runs nothing that waited', async () => {
    const { pending, seen } = watched();
    pending.submit('never sent');
    pending.failed();
    expect(seen.at(-1)).toEqual({ type: 'exit' });
    await pending.exit();
    expect(await pending.completePath('x')).toEqual([]);
    // an app that subscribes only now is ended all the same
    const late: Event[] = [];
    pending.subscribe((ev) => late.push(ev));
    await Promise.resolve();
    expect(late).toEqual([{ type: 'exit' }]);
  });

  it('gives the waiting prompts back, unsent, when interrupted before the session opens', () => {
    const { pending, seen } = watched();
    pending.submit('first');
    pending.submit('second');
    expect(pending.interrupt({ takeBack: true })).toBe(true);
    expect(seen.slice(2)).toEqual([
      { type: 'busy', busy: false },
      { type: 'activity', label: 'Opening the session', done: true },
      { type: 'prompt_returned', text: 'first\n\nsecond', message: expect.stringContaining('was not sent') },
    ]);
    expect(pending.interrupt()).toBe(false);
    const real = recording();
    pending.ready(real.controller);
    expect(real.calls).toEqual([]);
  });

  it('takes no key a capability binds, nor an interrupt, before the session is open', () => {
    const pending = new PendingController(START);
    expect(pending.press('ctrl+b')).toBe(false);
    expect(pending.interrupt({ takeBack: true })).toBe(false);
    expect(pending.cancelCompaction()).toBe(false);
    const real = recording();
    pending.ready(real.controller);
    expect(real.calls).toEqual([]);
  });
});
