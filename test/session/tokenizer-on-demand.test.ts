import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { openStore } from '../../src/store/index.js';
import { createTools } from '../../src/tools/registry.js';
import { isSummaryRequest, ScriptedProvider, SUMMARY } from '../compaction/helpers.js';
import { tempDir } from '../tempDirs.js';

// Fresh modules: each test imports the session anew (vi.resetModules) to start without the tokenizer.
// The compactor's exact counts load the tokenizer first (src/session/compactor.ts): a prompt whose
// cheap bound comes near the window, and /uncompact's fit check in a session resumed by a process
// that never loaded it. Without the load, the count throws "the tokenizer is not loaded".

/** The session and counter modules as a new process has them: the tokenizer not loaded. */
async function freshModules() {
  vi.resetModules();
  const tokens = await import('../../src/compaction/tokens.js');
  const { Session } = await import('../../src/session/session.js');
  const { runSlash } = await import('../../src/commands/registry.js');
  expect(tokens.tokenizerLoaded()).toBe(false);
  return { ...tokens, Session, runSlash };
}

describe('exact counts before the tokenizer is loaded', () => {
  it("a prompt whose bound exceeds the window's input share is counted exactly (the tokenizer loaded for it) and sent when it fits", async () => {
    const m = await freshModules();
    const dir = tempDir('agent-on-demand-');
    // the bound counts a byte a token: this prompt's 6,000 bytes are far more than the 3,000-token share, its tokens far fewer
    writeFileSync(join(dir, '.agentrc'), JSON.stringify({ models: { 'edge-model': { contextWindow: 4_024, maxOutputTokens: 1_024, provider: 'anthropic' } } }));
    const config = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: 'edge-model' } });
    const store = openStore(config.dbPath);
    const provider = new ScriptedProvider(() => ({ text: 'fine' }));
    const counter = new m.TokenCounter();
    const session = m.Session.open({ config, store, provider, tools: () => [], capabilities: [], counter });
    const refused: string[] = [];
    session.on((e) => void (e.type === 'prompt_refused' && refused.push(e.message)));
    const prompt = 'aaaa '.repeat(1_200);
    expect(counter.boundMessage({ id: 'p', role: 'user', kind: 'normal', createdAt: 0, blocks: [{ type: 'text', text: prompt }] })).toBeGreaterThan(4_024);
    expect((await session.prompt(prompt)).reason).toBe('end_turn');
    expect(refused).toEqual([]);
    expect(m.tokenizerLoaded()).toBe(true);
    session.close();
    store.close();
  });

  it('/uncompact in a resumed session, the tokenizer never loaded in this process: its fit check loads it', async () => {
    const m = await freshModules();
    const dir = tempDir('agent-on-demand-');
    const config = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: 'claude-sonnet-4-5' } });
    const store = openStore(config.dbPath);
    const long = 'An answer about the code base with details worth summarizing later on. '.repeat(30);
    // the first process counted with its own function: the tokenizer stays unloaded
    const own = new m.TokenCounter((text) => Math.ceil(text.length / 4));
    const provider = new ScriptedProvider((req) =>
      isSummaryRequest(req)
        ? { text: SUMMARY }
        : { text: `answer. ${long}`, usage: { inputTokens: own.countText(req.system) + own.countToolSpecs(req.tools) + own.countMessages(req.messages) } },
    );
    const deps = { config, store, provider, tools: (lent?: Parameters<typeof createTools>[1]) => createTools({ bash: config.bash }, lent), capabilities: [] };
    const first = m.Session.open({ ...deps, counter: own });
    for (let i = 0; i < 4; i++) await first.prompt(`part ${i}`);
    expect((await first.compact()).status).toBe('applied');
    first.close();
    expect(m.tokenizerLoaded()).toBe(false);
    const again = m.Session.open({ ...deps, counter: new m.TokenCounter() }, store.getSession(first.id)!);
    const out = await m.runSlash({ session: again }, '/uncompact 1');
    expect(out?.kind === 'text' && out.text).toMatch(/^Undid compaction 1: \d+ more messages in view/);
    expect(m.tokenizerLoaded()).toBe(true);
    again.close();
    store.close();
  });
});
