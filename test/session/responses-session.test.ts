import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenCounter } from '../../src/compaction/tokens.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import { createProvider } from '../../src/llm/factory.js';
import { Session } from '../../src/session/session.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createTools } from '../../src/tools/registry.js';
import { IN_PLACE_MARKER } from '../../src/compaction/prompt.js';
import { lastUserText, startFakeServer, type FakeServer } from '../fake-server/server.js';

// A live Responses session (in-process, real SDKs, the fake). /model between an OpenAI model on
// the Responses API and Claude (the TUI's path: Session.setModel builds the other family's
// provider): every request valid, each provider shown only its own reasoning or thinking, OpenAI's
// reasoning carried across the switch. Pins, /compact, /uncompact and /rewind: every request valid.

let server: FakeServer;
let dir: string;
beforeAll(async () => {
  server = await startFakeServer();
  dir = mkdtempSync(join(tmpdir(), 'agent-responses-switch-'));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = { OPENAI_API_KEY: 'k-openai', ANTHROPIC_API_KEY: 'k-anthropic', OPENAI_BASE_URL: '', ANTHROPIC_BASE_URL: '' };
/** A live session on gpt-5.4 in `cwd`, with `rc` as its .agentrc and its own database there. */
async function openSession(cwd: string, rc: Record<string, unknown>): Promise<{ session: Session; store: Store }> {
  writeFileSync(join(cwd, '.agentrc'), JSON.stringify(rc));
  const config = loadConfig({ cwd, home: cwd, env: { ...env, AGENT_DB: join(cwd, 'agent.db') }, flags: { model: 'gpt-5.4' } });
  const store = openStore(config.dbPath);
  const session = Session.open({
    config,
    store,
    provider: providerFor(config),
    tools: (lent) => createTools({ bash: config.bash }, lent),
    capabilities: [],
    counter: await createTokenCounter(),
    providerFor,
  });
  return { session, store };
}

const providerFor = (c: Config) =>
  c.provider === 'openai'
    ? createProvider({ provider: 'openai', apiKey: 'k', baseURL: server.openaiBaseURL, ...(c.api ? { api: c.api } : {}) })
    : createProvider({ provider: 'anthropic', apiKey: 'k', baseURL: server.anthropicBaseURL });

describe('/model between gpt-5.4 (Responses) and claude-sonnet-5-5', () => {
  it('gives valid requests both ways', async () => {
    const { session, store } = await openSession(dir, { api: 'responses', permissions: { mode: 'allow' } });
    server.enqueue({ toolCalls: [{ name: 'Glob', input: { pattern: '*.md' } }] }, { text: 'None.' });
    expect((await session.prompt('any docs?')).reason).toBe('end_turn');
    session.setModel('claude-sonnet-5-5');
    server.enqueue({ text: 'Claude agrees.' });
    expect((await session.prompt('agree?')).reason).toBe('end_turn');
    session.setModel('gpt-5.4');
    server.enqueue({ toolCalls: [{ name: 'Glob', input: { pattern: '*.ts' } }] }, { text: 'None either.' });
    expect((await session.prompt('any code?')).reason).toBe('end_turn');
    session.close();
    store.close();

    expect(server.requests.map((q) => `${q.path} ${q.response?.status}`)).toEqual([
      '/v1/responses 200',
      '/v1/responses 200',
      '/v1/messages 200',
      '/v1/responses 200',
      '/v1/responses 200',
    ]);
    const claude = JSON.stringify(server.requests[2]!.body);
    expect(claude).not.toMatch(/rs_fake|encrypted_content|"reasoning"/);
    const last = (server.requests[4]!.body as { input: { type: string; id?: string }[] }).input;
    expect(last.filter((i) => i.type === 'reasoning').map((i) => i.id)).toEqual(['rs_fake_1_0', 'rs_fake_2_0', 'rs_fake_4_0']);
  });
});

describe('a Responses session through pins, compaction, /uncompact and /rewind', () => {
  it('keeps every request valid: each reasoning item stays with its reply or leaves with it', async () => {
    server.clear();
    const sub = join(dir, 'history');
    mkdirSync(sub);
    const { session, store } = await openSession(sub, { api: 'responses', permissions: { mode: 'allow' }, compaction: { tailTurns: 1 } });
    server.respondWith((req) =>
      req.view.system.includes('context checkpoints') || (lastUserText(req.view)?.includes(IN_PLACE_MARKER) ?? false)
        ? { text: '## Goal\nList things.' }
        : undefined,
    );
    const toolTurn = async (t: number) => {
      server.enqueue({ text: `Looking ${t}.`, toolCalls: [{ name: 'Glob', input: { pattern: `*${t}` } }] }, { text: `Nothing for ${t}.` });
      expect((await session.prompt(`look for ${t}`)).reason).toBe('end_turn');
    };
    for (let t = 0; t < 4; t++) await toolTurn(t);
    session.pin('remember: glob patterns only');
    expect((await session.compact()).status).toBe('applied');
    await toolTurn(4);
    await session.edits.uncompact();
    await toolTurn(5);
    await session.edits.rewind('3', 'conversation');
    await toolTurn(6);
    session.close();
    store.close();
    const turns = server.requests.filter((q) => q.path === '/v1/responses');
    expect(turns.filter((q) => q.response?.status !== 200).map((q) => q.response?.errorMessage)).toEqual([]);
    // after the rewind, the reasoning of the turns it removed is gone with them
    const last = JSON.stringify(turns.at(-1)!.body);
    expect(last).not.toMatch(/look for 3|look for 4|look for 5/);
    expect(last).toContain('look for 6');
  });
});
