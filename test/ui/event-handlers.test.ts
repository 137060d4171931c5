// The UI's reduction of the one event vocabulary (src/protocol/events.ts): a handler table with
// one handler per event type, and long work whose End never came closed by the UI.
import { afterEach, describe, expect, it } from 'vitest';
import type { ChildState } from '../../src/agents/childState.js';
import type { Message } from '../../src/llm/messages.js';
import type { EventType } from '../../src/protocol/events.js';
import type { GoalView } from '../../src/protocol/views.js';
import { compactionHandlers } from '../../src/ui/events-compaction.js';
import type { EventHandlers } from '../../src/ui/events-host.js';
import { sessionHandlers } from '../../src/ui/events-session.js';
import { toolHandlers } from '../../src/ui/events-tools.js';
import { turnHandlers } from '../../src/ui/events-turn.js';
import { EVENT_HANDLERS } from '../../src/ui/event-handlers.js';
import { UiStore } from '../../src/ui/ui-store.js';
import { FakeController } from './fakes.js';

// Every type of the union, once: the compiler refuses this literal if a type is missing or unknown.
const EVERY_TYPE: Record<EventType, true> = {
  turn_start: true,
  request_start: true,
  text_delta: true,
  thinking_delta: true,
  tool_call_streaming: true,
  message: true,
  tool_start: true,
  tool_progress: true,
  tool_end: true,
  usage: true,
  retry: true,
  waiting: true,
  continuation: true,
  error: true,
  turn_end: true,
  compaction_start: true,
  compaction_progress: true,
  compaction_end: true,
  compaction_skipped: true,
  context: true,
  notice: true,
  permission_mode: true,
  history_reset: true,
  child: true,
  prompt_refused: true,
  prompt_returned: true,
  activity: true,
  unsaved: true,
  provider_notice: true,
  approval: true,
  command_output: true,
  session: true,
  busy: true,
  mcp_status: true,
  status_command: true,
  background_status: true,
  goal: true,
  exit: true,
};

describe("the UI's handler table", () => {
  it('has one handler for every event type of the vocabulary, and nothing else', () => {
    // a family file that drops a handler (or a handler for a type the union lost) fails here at run
    // time as well as at compile time
    expect(Object.keys(EVENT_HANDLERS).sort()).toEqual(Object.keys(EVERY_TYPE).sort());
    for (const h of Object.values(EVENT_HANDLERS)) expect(typeof h).toBe('function');
  });

  it('does not compile without a handler for each type', () => {
    const { exit: _exit, ...withoutExit } = sessionHandlers;
    // @ts-expect-error: 'exit' has no handler (npm run typecheck fails if this compiles)
    const partial: EventHandlers = { ...turnHandlers, ...toolHandlers, ...compactionHandlers, ...withoutExit };
    expect(Object.keys(partial)).not.toContain('exit');
  });
});

describe('a Begin whose End never comes', () => {
  let store: UiStore | undefined;
  afterEach(() => store?.dispose());

  it('is closed by the UI when the turn ends: a sub-agent that failed leaves no running row and no list of its own', () => {
    store = new UiStore(new FakeController(), () => 1000);
    const child: ChildState = {
      toolUseId: 'task1',
      agent: 'explore',
      description: 'check the parser',
      status: 'running',
      toolCalls: 1,
      tokens: 900,
      startedAt: 0,
      todos: [{ content: 'Read the parser', status: 'in_progress', activeForm: 'Reading the parser' }],
    };
    store.handle({ type: 'turn_start', turnId: 't' });
    store.handle({ type: 'tool_start', id: 'task1', name: 'Task', input: { description: 'check the parser', prompt: 'go' }, summary: 'check the parser' });
    store.handle({ type: 'child', state: child });
    store.handle({ type: 'tool_progress', id: 'task1', text: 'half' });
    expect(store.live.get().running.map((t) => t.id)).toEqual(['task1']);
    expect(Object.keys(store.tasks.children.get())).toEqual(['task1']);

    // the provider failed mid-way: no tool_end for the Task call, the turn ends in error
    store.handle({ type: 'error', kind: 'internal', message: 'the child failed' });
    store.handle({
      type: 'turn_end',
      reason: 'error',
      steps: 1,
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      text: '',
    });

    expect(store.live.get().running).toEqual([]);
    expect(store.live.get().turn).toBeNull();
    expect(store.tasks.children.get()).toEqual({});
    const row = store.transcript.get().items.find((i) => i.kind === 'tool' && i.toolUseId === 'task1');
    expect(row).toMatchObject({ kind: 'tool', name: 'Task', status: 'interrupted' });
  });
});
describe("a user message's event", () => {
  let store: UiStore | undefined;
  afterEach(() => store?.dispose());

  it('adds what the person typed; not a tool result, a meta message or a !command (each shown otherwise, or not at all)', () => {
    store = new UiStore(new FakeController(), () => 1000);
    const user = (over: Partial<Message>, text = 'hello'): Message => ({
      id: `m${text}`,
      role: 'user',
      blocks: [{ type: 'text', text }],
      kind: 'normal',
      createdAt: 0,
      ...over,
    });
    // mutations: `|| m.kind === 'meta'` made `&&` (the meta message shows as a row), the origin check dropped
    store.handle({ type: 'message', message: user({ kind: 'meta' }, 'the plan-mode reminder') });
    store.handle({ type: 'message', message: user({ origin: { kind: 'shell', command: 'ls', output: 'a', status: 'done' } }, 'shell') });
    store.handle({ type: 'message', message: user({ blocks: [{ type: 'tool_result', toolUseId: 't1', content: 'ok', isError: false }] }, 'result') });
    expect(store.transcript.get().items).toEqual([]);
    store.handle({ type: 'message', message: user({}, 'typed') });
    expect(store.transcript.get().items).toMatchObject([{ kind: 'user', text: 'typed' }]);
  });
});

describe("a goal's events", () => {
  let store: UiStore | undefined;
  afterEach(() => store?.dispose());

  it("set the footer's goal words; a goal that stops working says why once; a cleared goal leaves the footer", () => {
    store = new UiStore(new FakeController(), () => 1000);
    const goal = (status: GoalView['status'], footer: string, reason?: string): GoalView => ({
      objective: 'write the notes',
      status,
      budget: { turns: 3 },
      used: { tokens: 0, turns: 1, ms: 0 },
      footer,
      ...(reason ? { reason } : {}),
    });
    const notices = () => store!.transcript.get().items.filter((i) => i.kind === 'notice');
    // a goal restored paused: its words, no notice (it was not working)
    store.handle({ type: 'goal', goal: goal('paused', 'goal: paused') });
    expect(store.status.get().session.goal).toBe('goal: paused');
    expect(notices()).toEqual([]);
    store.handle({ type: 'goal', goal: goal('active', 'goal: active · 1/3 turns') });
    // mutation: the footer's sessionField dropped: the footer keeps the old words
    expect(store.status.get().session.goal).toBe('goal: active · 1/3 turns');
    store.handle({ type: 'goal', goal: goal('budget_limited', 'goal: budget-limited', 'the turn budget (3 turns) ran out') });
    expect(store.status.get().session.goal).toBe('goal: budget-limited');
    expect(notices()).toMatchObject([{ level: 'info', text: 'Goal budget-limited: the turn budget (3 turns) ran out.' }]);
    // not working before this one: no second notice
    store.handle({ type: 'goal', goal: goal('complete', 'goal: complete', 'the check passed') });
    expect(notices()).toHaveLength(1);
    store.handle({ type: 'goal', goal: null });
    expect(store.status.get().session.goal).toBeUndefined();
  });
});
// Mutations that fail this file: a family's handler deleted from EVENT_HANDLERS (the key list), the
// expect-error line compiling (a table typed loosely, e.g. Partial<…>), onTurnEnd not calling
// tasks.turnEnded() (the child's list stays), turnEndItems skipping the running rows (no interrupted row).
