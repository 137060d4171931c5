import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TokenCounter, tokenizerLoaded } from '../../src/compaction/tokens.js';
import { loadConfig } from '../../src/config/config.js';
import type { SessionEvent } from '../../src/protocol/events.js';
import { Session } from '../../src/session/session.js';
import { openStore } from '../../src/store/index.js';
import { createTools } from '../../src/tools/registry.js';
import { ScriptedProvider } from '../compaction/helpers.js';
import { tempDir } from '../tempDirs.js';

// Fresh modules: it watches a session's gauge before the tokenizer loads, then its load (vitest.config.ts).
// A session starts without the tokenizer: its gauge is a rough figure, said so, until a front end
// asks for exact ones (countExactly, /context's contextParts), which loads it and shows the exact
// gauge once. The tests run in order in this file's own process.

describe("a session's gauge before and after the tokenizer loads", () => {
  it('is rough until a front end asks for exact figures; the exact gauge is sent once, and /context gets it too', async () => {
    expect(tokenizerLoaded()).toBe(false);
    const dir = tempDir('agent-rough-gauge-');
    const config = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: 'claude-sonnet-4-5' } });
    const store = openStore(config.dbPath);
    const provider = new ScriptedProvider(() => ({ text: 'fine' }));
    const session = Session.open({
      config,
      store,
      provider,
      tools: (lent) => createTools({ bash: config.bash }, lent),
      capabilities: [],
      counter: new TokenCounter(),
    });
    const events: SessionEvent[] = [];
    session.on((e) => events.push(e));
    expect(session.contextUsage().rough).toBe(true);
    const exact = await session.countExactly();
    expect(tokenizerLoaded()).toBe(true);
    expect(exact.rough).toBeUndefined();
    expect(exact.tokens).toBeGreaterThan(0);
    const shown = events.flatMap((e) => (e.type === 'context' ? [e.usage] : []));
    expect(shown).toEqual([exact]);
    // already exact: nothing new to show
    expect((await session.countExactly()).rough).toBeUndefined();
    const parts = await session.contextParts();
    expect(parts.usage).toEqual(exact);
    expect(events.filter((e) => e.type === 'context')).toHaveLength(1);
    session.close();
    store.close();
  });
});
