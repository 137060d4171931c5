import { beforeEach, expect, it } from 'vitest';
import { runAgent, useFakeServer, workspace, type Workspace } from './inprocess.js';
import { describeEachProvider } from './regime.js';

// /btw end to end in print mode, through the real SDKs against the fake: a side question is sent
// with the session's system prompt and history, without tools, and its answer is shown; neither
// the question nor the answer enters the history, so the next turn's request never carries them.
// It is a capability made of one folder (src/btw/) and one line in src/capabilityList.ts.

const server = useFakeServer();

const textOf = (m: { blocks: Array<{ type: string; text?: string }> }): string => m.blocks.map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('');

describeEachProvider('/btw with %s', (provider) => {
  let ws: Workspace;
  beforeEach(() => {
    ws = workspace();
  });
  const run = (args: string[]) => runAgent(args, { ws, server, provider, timeoutMs: 30_000 });

  it('answers a side question from the context, without tools, and keeps it out of the history', async () => {
    server.enqueue({ text: 'Noted: the word is kumquat.' });
    const first = await run(['-p', 'remember the word kumquat']);
    expect(first.code, first.stderr).toBe(0);

    server.enqueue({ text: 'You asked me to remember kumquat.' });
    const aside = await run(['--continue', '-p', '/btw which word did I ask you to remember?']);
    expect(aside.code, aside.stderr).toBe(0);
    expect(aside.stdout).toContain('You asked me to remember kumquat.');
    const asked = server.requests[1]!.view!;
    // the session's own system prompt and history, then the question; no tool is offered
    expect(asked.toolNames).toEqual([]);
    expect(server.requests[0]!.view!.toolNames.length).toBeGreaterThan(0);
    expect(asked.system).toBe(server.requests[0]!.view!.system);
    expect(asked.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(textOf(asked.messages[0]!)).toContain('remember the word kumquat');
    expect(textOf(asked.messages[1]!)).toContain('Noted: the word is kumquat.');
    expect(textOf(asked.messages[2]!)).toContain('<side-question>');
    expect(textOf(asked.messages[2]!)).toContain('which word did I ask you to remember?');
    expect(server.requests[1]!.response?.status).toBe(200);

    server.enqueue({ text: 'Going on.' });
    const next = await run(['--continue', '-p', 'go on']);
    expect(next.code, next.stderr).toBe(0);
    const after = server.requests[2]!.view!;
    // the next turn is sent as if the side question was never asked
    expect(after.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(after.messages)).not.toContain('side-question');
    expect(JSON.stringify(after.messages)).not.toContain('You asked me to remember kumquat.');
    expect(textOf(after.messages[2]!)).toContain('go on');
  });

  it('refuses a /btw without a question, naming the usage, and sends nothing', async () => {
    const r = await run(['-p', '/btw']);
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toContain('usage: /btw <question>');
    expect(server.requests).toEqual([]);
  });
});

// Mutations checked: leaving `btw` out of src/capabilityList.ts fails all four (an unknown
// command); sending the question without the history (`asideMessages([], question)`) fails the
// first test of each provider.
