import { describe, expect, it } from 'vitest';
import { turnHost, type TurnParts } from '../../src/session/turnScope.js';
import { createTools } from '../../src/tools/registry.js';
import { tempDir } from '../tempDirs.js';

// The TurnHost the capabilities reach (src/session/turnScope.ts): a skill's allowed-tools join the
// turn's allowances, and a skill's !`command` goes through the gate, asking unless approved already.

function parts() {
  const tools = createTools({ bash: { timeoutMs: 10_000, maxTimeoutMs: 10_000, maxOutputChars: 10_000 } });
  const asked: boolean[] = [];
  const gate = {
    turnAllow: [] as unknown[],
    authorize: async (_call: unknown, _signal: AbortSignal, preapproved: boolean) => (asked.push(preapproved), { ok: false, message: 'no one to ask' }),
  };
  const p = { gate, direct: () => tools, frames: { current: { tools, config: { cwd: tempDir('agent-turn-scope-') } } }, emit: () => {} };
  return { host: turnHost(() => p as unknown as TurnParts), gate, asked };
}

describe("a capability's turn", () => {
  it("adds a skill's allowed-tools to the turn's allowances, after those it had, and names what it does not know", () => {
    const { host, gate } = parts();
    expect(host.allowTools(['Bash(npm test:*)', 'Nope'])).toEqual(['Nope']);
    expect(host.allowTools(['FileRead'])).toEqual([]);
    expect(gate.turnAllow).toHaveLength(2);
    expect(JSON.stringify(gate.turnAllow)).toMatch(/Bash.*npm test.*FileRead/);
  });

  it('runs a !`command` only as the gate allows: not approved already unless said so, with advice when refused', async () => {
    const { host, asked } = parts();
    const signal = new AbortController().signal;
    const refused = await host.shell('touch x.txt', signal);
    expect(refused).toEqual({
      refused:
        "!`touch x.txt` in the command was not run, so the prompt was not sent: no one to ask (list it in the command's allowed-tools, e.g. Bash(touch x.txt:*))",
    });
    expect(await host.shell('touch x.txt', signal, true)).toEqual({
      refused: '!`touch x.txt` in the command was not run, so the prompt was not sent: no one to ask',
    });
    expect(asked).toEqual([false, true]);
  });
});
