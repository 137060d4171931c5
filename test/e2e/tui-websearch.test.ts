import { afterEach, describe, expect, it } from 'vitest';
import type { Block } from '../../src/llm/messages.js';
import { DEFAULT_SEARCH_RESULTS } from '../fake-server/websearch.js';
import { AGENT_BIN, agentEnv, KEY, useFakeServer, workspace } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';

// A provider's web search in the interactive app (tmux): the search row (query, result count,
// the results' titles and URLs) and the numbered sources under the answer; then /model to
// OpenAI and back: the other provider never gets Anthropic's search, Anthropic gets it back.

const server = useFakeServer();
// named, as tui-responses does: the suite's .agentrc entry for claude-sonnet-4-5 (AGENT_E2E_ANTHROPIC_MODEL)
// names no provider, so /model to it from OpenAI would stay on OpenAI
const CLAUDE = 'claude-sonnet-5-5';
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

/** The model requests (a models lookup may come between them). */
const turns = () => server.requests.filter((r) => r.view !== undefined);
const searchesIn = (n: number): Block[] => (turns()[n - 1]?.view?.messages ?? []).flatMap((m) => m.blocks.filter((b) => b.type === 'web_search'));

describe.skipIf(!hasTmux)('web search in the TUI', () => {
  it('shows the search row and the cited sources, and keeps the search with its provider across /model', async () => {
    const ws = workspace({ api: 'responses', webSearch: { enabled: true } });
    const env = {
      ...agentEnv({ ws, server, provider: 'anthropic' }),
      OPENAI_API_KEY: KEY.openai,
      OPENAI_BASE_URL: server.openaiBaseURL,
      TERM: 'xterm-256color',
    };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', CLAUDE], cwd: ws.dir, env });
    await term.waitFor('Ask for a change');

    server.enqueue({ search: { query: 'vitest 4 release notes' }, text: 'Vitest 4 is out.' });
    term.type('what is new in vitest?');
    term.keys('Enter');
    await term.waitFor('Sources');
    const screen = term.screen();
    // mutation: no row for a live reply's search (ui-store), or no source list, fails these
    expect(screen).toContain('Web search "vitest 4 release notes"');
    expect(screen).toContain('2 results');
    expect(screen).toContain(`${DEFAULT_SEARCH_RESULTS[0]!.title} — ${DEFAULT_SEARCH_RESULTS[0]!.url}`);
    expect(screen).toMatch(/1\. Release notes — https:\/\/docs\.example\.org\/release-notes/);

    term.type('/model gpt-5.4');
    term.keys('Enter');
    await term.waitFor('Switched to gpt-5.4');
    server.enqueue({ text: 'GPT here.' });
    term.type('and you?');
    term.keys('Enter');
    await term.waitFor('GPT here.');
    // mutation: sending Anthropic's blocks to OpenAI (the fake refuses them) fails these
    expect(turns()[1]!.response?.status).toBe(200);
    expect(searchesIn(2)).toEqual([]);

    term.type(`/model ${CLAUDE}`);
    term.keys('Enter');
    await term.waitFor(`Switched to ${CLAUDE}`);
    server.enqueue({ text: 'Claude again.' });
    term.type('back?');
    term.keys('Enter');
    await term.waitFor('Claude again.');
    // mutation: dropping the search when the model changed back fails this
    expect(turns()[2]!.response?.status).toBe(200);
    expect(searchesIn(3)).toHaveLength(1);
  });
});
