import { describe, expect, it } from 'vitest';
import type { LoopOptions } from '../../src/agent/loop.js';
import { toolsWaitFor } from '../../src/session/session.js';

// The checkpoint before a turn runs while its first request goes out (session.ts): every tool
// call waits for it before its PreToolUse hook and its approval, so nothing a tool or a hook
// does lands in the snapshot taken before the turn.
describe('toolsWaitFor', () => {
  it('holds every approval and PreToolUse hook until the snapshot is taken; the rest passes through', async () => {
    const log: string[] = [];
    const base = {
      gate: { authorize: async () => (log.push('authorize'), { ok: true as const }) },
      hooks: {
        beforeTool: async () => (log.push('beforeTool'), {}),
        afterTool: async () => (log.push('afterTool'), 'note'),
        onStop: async () => (log.push('onStop'), undefined),
      },
      maxSteps: 7,
    } as unknown as LoopOptions;
    let taken!: () => void;
    const snapshot = new Promise<void>((r) => (taken = r));
    const o = toolsWaitFor(snapshot, base);
    const call = { name: 'Bash', input: {}, toolUseId: 't1' };
    const signal = new AbortController().signal;
    const pre = o.hooks!.beforeTool(call, signal);
    const auth = o.gate.authorize({} as Parameters<LoopOptions['gate']['authorize']>[0], signal, false);
    expect(await o.hooks!.afterTool(call, { content: 'x', isError: false }, signal)).toBe('note');
    await new Promise((r) => setTimeout(r, 20));
    expect(log).toEqual(['afterTool']);
    log.push('snapshot taken');
    taken();
    expect(await pre).toEqual({});
    expect(await auth).toEqual({ ok: true });
    expect(log).toEqual(['afterTool', 'snapshot taken', 'beforeTool', 'authorize']);
    expect(o.maxSteps).toBe(7);
  });

  it('adds no hooks to a turn that has none', () => {
    const o = toolsWaitFor(Promise.resolve(), { gate: { authorize: async () => ({ ok: true }) } } as unknown as LoopOptions);
    expect(o.hooks).toBeUndefined();
  });
});
