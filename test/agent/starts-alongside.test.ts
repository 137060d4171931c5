import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoopOptions } from '../../src/agent/host.js';
import { runTools } from '../../src/agent/runTools.js';
import { BackgroundCommands } from '../../src/background/commands.js';
import type { ToolUseBlock } from '../../src/llm/messages.js';
import type { AgentEvent } from '../../src/protocol/events.js';
import { createBashTool } from '../../src/tools/bash.js';
import type { AnyTool } from '../../src/tools/types.js';
import { tree } from '../tools/helpers.js';

// Background starts in one step: each waits a moment for its command's first lines; nine of them
// one after another took 2.7 s. They run together, their waits overlapping, results in call order.

describe('background starts in one step', () => {
  it('run together: every command has started before the first answers, and the results keep the call order', async () => {
    const root = tree();
    const shells = new BackgroundCommands({ root: join(root, 'bg'), maxRunning: 10, redact: (t) => t }).open('s1');
    const bash = createBashTool({ timeoutMs: 20_000, maxTimeoutMs: 60_000, maxOutputChars: 30_000 }, { background: shells }) as AnyTool;
    const uses: ToolUseBlock[] = [1, 2, 3].map((n) => ({
      type: 'tool_use',
      id: `t${n}`,
      name: bash.name,
      input: { command: `echo started-${n}; sleep 30`, run_in_background: true },
    }));
    const opts = {
      tools: [bash],
      gate: { authorize: async () => ({ ok: true }) },
      cwd: root,
    } as unknown as LoopOptions;
    const events: AgentEvent[] = [];
    try {
      const { results } = await runTools(uses, new Map([[bash.name, bash]]), opts, new AbortController().signal, (e) => events.push(e));
      const order = events.flatMap((e) => (e.type === 'tool_start' || e.type === 'tool_end' ? [`${e.type} ${e.id}`] : []));
      // mutation: background starts run one by one (tool_end t1 before tool_start t2)
      expect(order.indexOf('tool_start t3')).toBeLessThan(order.indexOf('tool_end t1'));
      expect(results.map((r) => r.toolUseId)).toEqual(['t1', 't2', 't3']);
      for (const [i, r] of results.entries()) expect(r.content).toMatch(new RegExp(`^Started in the background as b\\d \\(pid \\d+\\): echo started-${i + 1}`));
      expect(shells.running()).toHaveLength(3);
    } finally {
      await shells.stopAll();
    }
  });

  it('a call whose input does not parse runs alone: it neither joins the starts before it nor takes those after it along', async () => {
    const root = tree();
    const shells = new BackgroundCommands({ root: join(root, 'bg'), maxRunning: 10, redact: (t) => t }).open('s1');
    const bash = createBashTool({ timeoutMs: 20_000, maxTimeoutMs: 60_000, maxOutputChars: 30_000 }, { background: shells }) as AnyTool;
    const start = (id: string): ToolUseBlock => ({
      type: 'tool_use',
      id,
      name: bash.name,
      input: { command: `echo ${id}; sleep 30`, run_in_background: true },
    });
    const uses: ToolUseBlock[] = [start('t1'), { type: 'tool_use', id: 't2', name: bash.name, input: { run_in_background: true } }, start('t3')];
    const opts = { tools: [bash], gate: { authorize: async () => ({ ok: true }) }, cwd: root } as unknown as LoopOptions;
    const events: AgentEvent[] = [];
    try {
      const { results } = await runTools(uses, new Map([[bash.name, bash]]), opts, new AbortController().signal, (e) => events.push(e));
      const order = events.flatMap((e) => (e.type === 'tool_start' || e.type === 'tool_end' ? [`${e.type} ${e.id}`] : []));
      expect(order).toEqual(['tool_start t1', 'tool_end t1', 'tool_start t2', 'tool_end t2', 'tool_start t3', 'tool_end t3']);
      expect(results[1]).toEqual(expect.objectContaining({ isError: true, content: expect.stringMatching(/^Invalid input for Bash/) }));
      expect(shells.running()).toHaveLength(2);
    } finally {
      await shells.stopAll();
    }
  });
});
