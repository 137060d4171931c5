import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CustomCommand } from '../../src/commands/custom.js';
import { CustomCommandError, runCustom } from '../../src/commands/customRun.js';
import { createTokenCounter, type TokenCounter } from '../../src/compaction/tokens.js';
import { loadConfig } from '../../src/config/config.js';
import { Session } from '../../src/session/session.js';
import { openStore } from '../../src/store/index.js';
import { createTools } from '../../src/tools/registry.js';
import { ScriptedProvider } from '../compaction/helpers.js';
import { tempDir } from '../tempDirs.js';

// A custom command run in a real session (real store and tools, a scripted provider, no person to
// ask: print mode): which model serves its turn, and how a refused !`command` is said.

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter();
});

function open() {
  const dir = tempDir('agent-custom-run-');
  const config = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: 'claude-sonnet-4-5' } });
  const store = openStore(config.dbPath);
  const provider = new ScriptedProvider(() => ({ text: 'Reviewed.' }));
  const session = Session.open({ config, store, provider, tools: (lent) => createTools({ bash: config.bash }, lent), capabilities: [], counter });
  return { session, provider, close: () => (session.close(), store.close()) };
}

const command = (over: Partial<CustomCommand>): CustomCommand => ({
  name: 'review',
  description: 'Review',
  body: 'Review $1',
  file: '/p/.claude/commands/review.md',
  source: 'project',
  ...over,
});

describe('a custom command run', () => {
  it("its model serves its turn, and the session's comes back after it", async () => {
    const { session, provider, close } = open();
    const result = await runCustom(session, command({ model: 'claude-haiku-4-5' }), 'src/a.ts', []);
    expect(result.reason).toBe('end_turn');
    // mutation: the turn not awaited in the try: the model is restored before the request goes
    expect(provider.requests.map((r) => r.model)).toEqual(['claude-haiku-4-5']);
    expect(JSON.stringify(provider.requests[0]!.messages)).toContain('Review src/a.ts');
    expect(session.currentConfig.model.name).toBe('claude-sonnet-4-5');
    close();
  });

  it("a !`command` nobody may approve (print mode) is refused as the command's error, naming it; nothing is sent", async () => {
    const { session, provider, close } = open();
    const run = runCustom(session, command({ body: 'The status: !`git status`\nReview $1' }), 'x', []);
    await expect(run).rejects.toBeInstanceOf(CustomCommandError);
    await expect(run).rejects.toThrow(/^\/review: /);
    expect(provider.requests).toEqual([]);
    close();
  });

  it('a project skill asks whether its code may run only when its body runs commands; approved, they run unasked', async () => {
    const asked: string[] = [];
    const skill = (name: string, body: string): CustomCommand => {
      const dir = tempDir('agent-skill-');
      const file = join(dir, 'SKILL.md');
      return command({
        name,
        body,
        file,
        skill: {
          skill: {
            name,
            description: name,
            body,
            file,
            dir,
            scope: 'project',
            source: 'project .claude/skills',
            disableModelInvocation: false,
            userInvocable: true,
            fork: false,
          },
          mayRunCode: async () => (asked.push(name), true),
        },
      });
    };
    const { session, provider, close } = open();
    // mutation: `commandsOf(body).length > 0` made `>= 0`: a skill with no commands asks the person anyway
    expect((await runCustom(session, skill('plain', 'Explain $1'), 'x', [])).reason).toBe('end_turn');
    expect(asked).toEqual([]);
    expect((await runCustom(session, skill('status', 'The date: !`echo skill-ran-$((6*7))`'), '', [])).reason).toBe('end_turn');
    expect(asked.length).toBeGreaterThan(0);
    expect(JSON.stringify(provider.requests.at(-1)!.messages)).toContain('skill-ran-42');
    close();
  });
});
