import { describe, expect, it } from 'vitest';
import type { Capability } from '../../src/capability/capability.js';
import type { CapabilityContext } from '../../src/capability/context.js';
import { plan, planCapability, TASKS_MIN_WINDOW, type TasksSetting } from '../../src/plan/capability.js';
import { currentTodos, taskList, todosOpen, type Todo } from '../../src/plan/todos.js';
import type { Session } from '../../src/session/session.js';
import { TOOL } from '../../src/tools/toolNames.js';
import { assistant, results, user } from '../compaction/helpers.js';

const list = (content: string) => ({ todos: [{ content, status: 'in_progress', activeForm: `Doing ${content}` }] });
const call = (id: string, content: string) => assistant('', [{ id, name: TOOL.TodoWrite, input: list(content) }]);

describe('the task list a log sets', () => {
  it('is set only by a call whose result is in the log and is no error', () => {
    const first = [user('plan it'), call('tw1', 'first'), results([{ id: 'tw1', content: 'set' }])];
    expect(currentTodos(first).map((t) => t.content)).toEqual(['first']);
    // a call with no result yet (still running, or cut off by a crash) sets nothing
    expect(currentTodos([...first, call('tw2', 'pending')]).map((t) => t.content)).toEqual(['first']);
    // a call whose result is an error sets nothing
    const refused = [...first, call('tw3', 'refused'), results([{ id: 'tw3', content: 'denied', isError: true }])];
    expect(currentTodos(refused).map((t) => t.content)).toEqual(['first']);
    expect(currentTodos([user('hi'), call('tw4', 'never answered')])).toEqual([]);
  });

  it('is work under way (shown above the prompt) while an item is neither completed nor cancelled', () => {
    const of = (...statuses: Todo['status'][]): Todo[] => statuses.map((status, i) => ({ content: `step ${i}`, status }));
    expect(todosOpen(of('completed', 'cancelled'))).toBe(false);
    expect(todosOpen(of('cancelled'))).toBe(false);
    expect(todosOpen(of('completed', 'pending'))).toBe(true);
    expect(todosOpen(of('completed', 'blocked'))).toBe(true);
    expect(todosOpen([])).toBe(false);
  });
});
// Mutation checked: dropping `done.has(b.id) &&` from lastSuccessfulInput (plan/todos.ts) fails this
// test (the unanswered call's list is taken). todosOpen without `&& t.status !== 'cancelled'` (a
// finished list with a cancelled item stays above the prompt) fails "is work under way" (the fresh
// sample of 6 Dec, mutant 8).

describe("the plan capability's task list", () => {
  it('is read from the whole log, archived messages too; none set is no list and nothing open', () => {
    const log = [user('plan it'), call('tw1', 'first'), results([{ id: 'tw1', content: 'set' }])];
    // a compaction archived the call: only a read of the archived messages still has it
    const session = { messages: (o?: { archived?: boolean }) => (o?.archived ? log : []) } as unknown as Session;
    const todos = planCapability({ tasks: 'on', contextWindow: 200_000 }).views?.todos;
    // mutation: `archived: false` in the todos view (plan/capability.ts) loses the list at the first compaction
    expect(todos?.(session, '')).toMatchObject({ todos: [{ content: 'first' }], setBy: expect.any(String), open: true });
    // mutation: `open: true` for a log without a list (plan/todos.ts) shows an empty list as work under way
    expect(taskList([user('hi')])).toEqual({ todos: [], open: false });
  });

  it('offers TodoWrite by default (tools.tasks unset: auto) on a window large enough', () => {
    const names = (tools: { tasks?: TasksSetting } | undefined, contextWindow: number) =>
      (plan({ config: { tools, model: { contextWindow } } } as unknown as CapabilityContext) as Capability).toolNames;
    // mutation: `tools?.tasks && 'auto'` (plan/capability.ts) leaves TodoWrite out when the setting is unset
    expect(names(undefined, 200_000)).toEqual([TOOL.TodoWrite, TOOL.ExitPlanMode]);
    expect(names({}, TASKS_MIN_WINDOW - 1)).toEqual([TOOL.ExitPlanMode]);
    expect(names({ tasks: 'off' }, 200_000)).toEqual([TOOL.ExitPlanMode]);
  });
});
