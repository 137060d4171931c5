import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenCounter } from '../../src/compaction/tokens.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import { createProvider } from '../../src/llm/factory.js';
import { Session } from '../../src/session/session.js';
import { openStore } from '../../src/store/index.js';
import { createTools } from '../../src/tools/registry.js';
import { startFakeServer, type FakeServer } from '../fake-server/server.js';

// /model between an OpenAI model on the Responses API and Claude, in one live session (the
// TUI's path: Session.setModel builds the other family's provider): every request valid, each
// provider shown only its own reasoning or thinking, OpenAI's reasoning carried across the switch.

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
const providerFor = (c: Config) =>
  c.provider === 'openai'
    ? createProvider({ provider: 'openai', apiKey: 'k', baseURL: server.openaiBaseURL, ...(c.api ? { api: c.api } : {}) })
    : createProvider({ provider: 'anthropic', apiKey: 'k', baseURL: server.anthropicBaseURL });

describe('/model between gpt-5.4 (Responses) and claude-sonnet-5-5', () => {
  it('gives valid requests both ways', async () => {
    writeFileSync(join(dir, '.agentrc'), JSON.stringify({ api: 'responses', permissions: { mode: 'allow' } }));
    const config = loadConfig({ cwd: dir, home: dir, env: { ...env, AGENT_DB: join(dir, 'agent.db') }, flags: { model: 'gpt-5.4' } });
    const store = openStore(config.dbPath);
    const session = Session.open({ config, store, provider: providerFor(config), tools: createTools({ bash: config.bash }), counter: await createTokenCounter(), providerFor });
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
