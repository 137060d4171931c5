import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { background, backgroundCapability } from '../../src/background/capability.js';
import { BackgroundCommands } from '../../src/background/commands.js';
import { backgroundSection, runningCommands } from '../../src/background/ledgerSection.js';
import type { Capability, CapabilityHost } from '../../src/capability/capability.js';
import type { CapabilityContext, CommandSession } from '../../src/capability/context.js';
import type { Message } from '../../src/llm/messages.js';
import { childGroups } from '../../src/processes/groups.js';
import { createBashTool } from '../../src/tools/bash.js';
import { call, perSession, sessionCtx, tree } from '../tools/helpers.js';

const bash = perSession((lent) => createBashTool({ timeoutMs: 20_000, maxTimeoutMs: 60_000, maxOutputChars: 30_000 }, lent));
const host = (sessionId: string): CapabilityHost => ({ sessionId, resumed: false }) as unknown as CapabilityHost;

const msg = (role: 'user' | 'assistant', blocks: Message['blocks']): Message => ({ id: `m${Math.random()}`, role, blocks, kind: 'normal', createdAt: 0 });

describe('the background capability', () => {
  it("stops a session's running commands when it closes (a sub-agent's child ending), and only that session's", async () => {
    const root = tree();
    const commands = new BackgroundCommands({ root: join(root, 'bg'), maxRunning: 10, redact: (t) => t });
    const cap = backgroundCapability(commands);
    const child = cap.open(host('child'));
    const parent = cap.open(host('parent'));
    await call(bash, { command: 'sleep 30.17', run_in_background: true }, sessionCtx(root, { background: child.background! }));
    await call(bash, { command: 'sleep 30.18', run_in_background: true }, sessionCtx(root, { background: parent.background! }));
    expect(commands.running().map((r) => r.sessionId)).toEqual(['child', 'parent']);
    await child.close?.();
    // mutation: a close that stops nothing leaves the child's sleep in the registry
    expect(commands.running().map((r) => r.sessionId)).toEqual(['parent']);
    expect(childGroups().some((g) => g.label === 'sleep 30.17')).toBe(false);
    // the saved state names both of the child's facts; the parent's end is told at its next request
    expect(child.state?.save()).toMatchObject([{ id: 'b1', command: 'sleep 30.17', state: 'stopped' }]);
    await commands.stopAll();
    let notices: string[] = [];
    for (let waited = 0; notices.length === 0 && waited < 5_000; waited += 20) {
      await new Promise((r) => setTimeout(r, 20));
      notices = parent.hooks?.notices?.() ?? [];
    }
    expect(notices.join('\n')).toContain('[Background command b1 ended: stopped');
  });

  it('restores what a session saved forgivingly: bad entries left out, a running one ended with its status unknown', () => {
    const commands = new BackgroundCommands({ root: tree(), maxRunning: 10, redact: (t) => t });
    const s = backgroundCapability(commands).open(host('s'));
    s.state?.restore([{ id: 'b2', command: 'npm run dev', file: '/nowhere/b2.log', state: 'running', pid: 1 }, { id: 'x' }, 'junk']);
    expect(commands.list()).toMatchObject([{ id: 'b2', state: 'lost' }]);
    expect(s.background?.output('b2')?.label).toBe('background command `npm run dev` (ended, exit status unknown)');
    // a new command continues the numbering
    expect(s.background?.refusal()).toBeUndefined();
  });
});

describe('/tasks', () => {
  it('answers with the list (its text and its rows) when bare, and with the text of what it did otherwise', async () => {
    const ctx = { dataDir: tree(), config: { bash: { maxBackground: 3 } }, redact: (t: string) => t } as unknown as CapabilityContext;
    const tasks = (background(ctx) as Capability).commands!.find((c) => c.name === 'tasks')!;
    const session = { id: 's' } as unknown as CommandSession;
    const signal = new AbortController().signal;
    // mutation: the command's text not awaited hands the front end a promise for text
    expect(await tasks.run(session, '', signal)).toEqual({
      kind: 'tasks',
      rows: [],
      text: 'No background commands in this run. The model starts one with Bash run_in_background.',
    });
    expect(await tasks.run(session, ' stop all ', signal)).toEqual({ kind: 'text', text: 'No background command is running.' });
  });
});

describe("the ledger's background section", () => {
  it('lists the commands started or moved to the background that no end notice has closed', () => {
    const messages: Message[] = [
      msg('assistant', [
        { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm run dev', run_in_background: true } },
        { type: 'tool_use', id: 't2', name: 'Bash', input: { command: 'npm test' } },
      ]),
      msg('user', [
        { type: 'tool_result', toolUseId: 't1', content: 'Started in the background as b1 (pid 10): npm run dev', isError: false },
        { type: 'tool_result', toolUseId: 't2', content: 'The command was still running after 2m, so it was moved to the background as b2; …', isError: false },
      ]),
      msg('assistant', [{ type: 'tool_use', id: 't3', name: 'Bash', input: { command: 'ls' } }]),
      msg('user', [
        { type: 'tool_result', toolUseId: 't3', content: 'a\nb', isError: false },
        { type: 'text', text: '[Background command b2 ended: exit code 0 after 3m]\n$ npm test' },
      ]),
    ];
    // mutation: ignoring the end notices lists b2 as well
    expect(runningCommands(messages)).toEqual([{ id: 'b1', command: 'npm run dev' }]);
    expect(backgroundSection.derive({ messages, kept: new Set(), describe: () => '' })).toEqual([
      { text: 'b1: `npm run dev`', brief: 'b1: `npm run dev`', recallId: 'b1' },
    ]);
  });
});
