import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, KEY, useFakeServer, workspace } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';

// The interactive app on OpenAI's Responses API in a real terminal (tmux): a tool turn on
// gpt-5.4, /model to Claude and back, and /cost with the reasoning tokens the server reported.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

describe.skipIf(!hasTmux)('the TUI on the Responses API', () => {
  it('runs tool turns across /model switches and shows reasoning tokens in /cost', async () => {
    const ws = workspace({ api: 'responses', permissions: { mode: 'allow' } });
    const env = {
      ...agentEnv({ ws, server, provider: 'openai' }),
      ANTHROPIC_API_KEY: KEY.anthropic,
      ANTHROPIC_BASE_URL: server.anthropicBaseURL,
      TERM: 'xterm-256color',
    };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'gpt-5.4'], cwd: ws.dir, env });
    await term.waitFor('Ask for a change');
    // the footer shows gpt's reasoning effort as it shows Claude's thinking (issue 30; an empty mark for OpenAI fails this)
    await term.waitFor('gpt-5.4 (reasoning medium)');

    server.enqueue({ text: 'Looking.', toolCalls: [{ name: 'Glob', input: { pattern: '*.md' } }] }, { text: 'There are no markdown files.' });
    term.type('any markdown files?');
    term.keys('Enter');
    await term.waitFor('There are no markdown files.');

    term.type('/model claude-sonnet-5-5');
    term.keys('Enter');
    await term.waitFor('Switched to claude-sonnet-5-5');
    server.enqueue({ text: 'Claude confirms.' });
    term.type('confirm?');
    term.keys('Enter');
    await term.waitFor('Claude confirms.');
    expect(term.screen()).toContain('claude-sonnet-5-5 (thinking high)');

    term.type('/model gpt-5.4');
    term.keys('Enter');
    await term.waitFor('Switched to gpt-5.4');
    server.enqueue({ text: 'GPT again.' });
    term.type('and you?');
    term.keys('Enter');
    await term.waitFor('GPT again.');
    expect(term.screen()).toContain('gpt-5.4 (reasoning medium)');

    term.type('/cost');
    term.keys('Enter');
    await term.waitFor(/of it thinking/);
    expect(term.screen()).toMatch(/gpt-5\.4\s+\S+\s+\S+\s+\d+/);

    expect(server.requests.map((q) => `${q.path} ${q.response?.status}`)).toEqual([
      '/v1/responses 200',
      '/v1/responses 200',
      '/v1/messages 200',
      '/v1/responses 200',
    ]);
    expect(JSON.stringify(server.requests[2]!.body)).not.toContain('encrypted_content');
    expect(JSON.stringify(server.requests[3]!.body)).toContain('rs_fake_2_0');
  }, 120_000);
});
