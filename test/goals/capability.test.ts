import { describe, expect, it } from 'vitest';
import type { CapabilityHost } from '../../src/capability/capability.js';
import type { CapabilityContext, CommandSession } from '../../src/capability/context.js';
import { goals } from '../../src/goals/capability.js';
import type { Goals } from '../../src/goals/goals.js';
import { createBashTool } from '../../src/tools/bash.js';
import type { AnyTool } from '../../src/tools/types.js';
import { tempDir } from '../tempDirs.js';

// The goals capability as the composition root builds it (src/goals/capability.ts): the check
// runs through the run's Bash tool among the built-in ones, /goal reaches the session's goal,
// and a sub-agent's session has none.

/** A built-in tool that is not Bash, whose every run fails (a check run through it never passes). */
const other: AnyTool = {
  name: 'FileRead',
  parse: (i: unknown) => i,
  run: async () => ({ content: 'not Bash', isError: true }),
} as unknown as AnyTool;

function built(builtins: readonly AnyTool[]) {
  const cwd = tempDir('goal-capability-');
  const ctx = { config: { cwd, bash: { maxTimeoutMs: 60_000 } }, builtins } as unknown as CapabilityContext;
  const cap = goals(ctx);
  if (!cap || cap instanceof Promise) throw new Error('no goals capability');
  return { cap, cwd, all: cap.parts!.goals as Goals };
}

const host = (sessionId: string, parent?: CapabilityHost['parent']): CapabilityHost =>
  ({ sessionId, resumed: false, ...(parent ? { parent } : {}) }) as unknown as CapabilityHost;

describe('the goals capability', () => {
  it("runs a goal's check with the Bash tool of the built-in ones, in the project, and /goal sets and reads the session's goal", async () => {
    const bash = createBashTool({ timeoutMs: 20_000, maxTimeoutMs: 60_000, maxOutputChars: 30_000 }) as AnyTool;
    const { cap, cwd, all } = built([other, bash]);
    const session = cap.open(host('s1'));
    expect(session.toolSet!()).toEqual({ tools: [], system: '' });
    const command = cap.commands![0]!;
    const asked: Pick<CommandSession, 'id' | 'busy'> = { id: 's1', busy: false };
    expect(await command.run(asked as CommandSession, 'print the folder --check pwd', new AbortController().signal)).toEqual({
      kind: 'text',
      text: 'Goal set: print the folder\nCheck: pwd',
    });
    // the Goal tool comes with an open goal
    expect(session.toolSet!().tools.map((t) => t.name)).toEqual(['Goal']);
    // mutation: the first built-in tool that is not Bash runs the check (it fails, and the goal goes on)
    expect(await all.next('s1', false)).toBeUndefined();
    expect(all.of('s1')!.current).toMatchObject({ status: 'complete', reason: 'the check passed', checks: [{ passed: true, output: cwd }] });
    expect(session.toolSet!()).toEqual({ tools: [], system: '' });
  });

  it('without a Bash tool the check says it cannot run, and a sub-agent opens no goal', async () => {
    const { cap, all } = built([other]);
    cap.open(host('s1'));
    all.of('s1')!.set({ objective: 'reach the moon', check: 'true', budget: {} });
    // the check failed: the first turn starts the work
    expect(await all.next('s1', false)).toContain('reach the moon');
    expect(all.of('s1')!.current!.checks).toEqual([
      expect.objectContaining({ passed: false, output: 'The check could not run: this session has no Bash tool.' }),
    ]);
    expect(cap.open(host('s_child', { id: 's1', label: 'explore: x', handBackground: false }))).toEqual({});
    expect(all.of('s_child')).toBeUndefined();
  });
});
