import { describe, expect, it } from 'vitest';
import { currentTodos, todosOpen, type Todo } from '../../src/plan/todos.js';
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
