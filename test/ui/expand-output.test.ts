import { describe, expect, it } from 'vitest';
import { ToolExpander } from '../../src/ui/expand-output.js';
import type { ToolItem, TranscriptItem } from '../../src/ui/transcript.js';

// Ctrl+O's choice of row over a session's rows from the start (a resumed transcript): the last
// finished tool row, wherever it is. The live path and the spilled outputs run in
// test/ui/expand-spilled.test.tsx.

const tool = (id: string, output: string): ToolItem => ({ kind: 'tool', id, toolUseId: `u-${id}`, name: 'Bash', summary: `! ${id}`, status: 'done', output });

describe('Ctrl+O over a resumed transcript', () => {
  it("finds the last tool row, a session's very first row included (a `!command` it began with)", () => {
    const expander = new ToolExpander({ viewOf: () => undefined });
    const items: TranscriptItem[] = [
      tool('t1', 'On branch main'),
      { kind: 'user', id: 'u1', text: 'what changed?' },
      { kind: 'assistant', id: 'a1', text: 'Nothing yet.', interrupted: false },
    ];
    expander.reset(items);
    expect(expander.last?.id).toBe('t1');
    expect(expander.expand()).toMatchObject({ item: { kind: 'tool_output', output: 'On branch main' } });
    expect(expander.expand()).toEqual({ hint: 'That output is already shown in full above' });

    expander.reset([tool('t1', 'first'), { kind: 'user', id: 'u1', text: 'go on' }, tool('t2', 'second')]);
    expect(expander.expand()).toMatchObject({ item: { output: 'second' } });
    expander.reset([{ kind: 'user', id: 'u1', text: 'hi' }]);
    expect(expander.expand()).toEqual({ hint: 'No tool output to expand yet' });
  });
});

// Mutation checked: reset's scan stopping before the first item (`i > 0`: a session that began with
// `!git status` has nothing to expand after --resume) fails this test (the fresh sample of 6 Dec,
// mutant 10).
