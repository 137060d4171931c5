import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTokenCounter, type TokenCounter } from '../../src/compaction/tokens.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import type { ModelRequest } from '../../src/llm/provider.js';
import { Session, type SessionEvent } from '../../src/session/session.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createTools } from '../../src/tools/registry.js';
import { ScriptedProvider } from '../compaction/helpers.js';

// Issue #14 at the session: /context and the gauge agree, and what the TUI conventions store.

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter();
});

function setup(): { config: Config; dir: string; store: Store } {
  const dir = mkdtempSync(join(tmpdir(), 'agent-daily-'));
  const config = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: 'claude-sonnet-4-5' } });
  return { config, dir, store: openStore(config.dbPath) };
}

function open(config: Config, store: Store, provider: ScriptedProvider): { session: Session; events: SessionEvent[] } {
  const session = Session.open({ config, store, provider, tools: createTools({ bash: config.bash }), counter });
  const events: SessionEvent[] = [];
  session.on((e) => events.push(e));
  return { session, events };
}

const inputOf = (req: ModelRequest): number => counter.countText(req.system) + counter.countToolSpecs(req.tools) + counter.countMessages(req.messages);

describe('/context and the gauge', () => {
  it('show the same calibrated count: the breakdown adds up to the gauge tokens', async () => {
    const { config, store } = setup();
    // the provider counts 40% more than our tokenizer: the gauge follows the provider
    const provider = new ScriptedProvider((req) => ({ text: 'an answer with a few words in it', usage: { inputTokens: Math.round(inputOf(req) * 1.4) } }));
    const { session } = open(config, store, provider);
    for (let i = 0; i < 3; i++) await session.prompt(`question number ${i} about the code`);
    const usage = session.contextUsage();
    const out = session.contextBreakdown();
    if (out.kind !== 'context') throw new Error('not a breakdown');
    const sum = out.rows.reduce((s, r) => s + r.tokens, 0);
    expect(sum).toBe(usage.tokens);
    expect(out.effectiveWindow).toBe(usage.effectiveWindow);
    session.close();
    store.close();
  });
});
