import { describe, expect, it } from 'vitest';
import type { RunningCommand } from '../../src/background/commands.js';
import { leftRunningText } from '../../src/background/printEnd.js';

const left = (id: string, pid: number, command: string): RunningCommand => ({
  id,
  command,
  pid,
  sessionId: 's1',
  startedAt: 0,
  state: 'detached',
  file: `/tmp/${id}.log`,
  chars: 0,
  bytes: 0,
  kept: 0,
  lastRead: 0,
});

describe('the note on commands left running', () => {
  it('gives the kill command with their real pids, never a "-<pid>" placeholder', () => {
    expect(leftRunningText([left('b1', 4242, 'npm run dev')])).toBe(
      'the background command left running (detached): b1 `npm run dev` (pid 4242); their output is no longer archived; ' +
        'stop it with kill -TERM -4242 (its whole process group)',
    );
    expect(leftRunningText([left('b1', 11, 'a'), left('b2', 12, 'b')])).toContain('stop them with kill -TERM -11 -12 (their whole process groups)');
  });
});
// Mutation checked: the old text's literal "-<pid>" fails both cases.
