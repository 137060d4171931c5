import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTokenCounter, type TokenCounter } from '../../src/compaction/tokens.js';
import { loadConfig } from '../../src/config/config.js';
import { Session } from '../../src/session/session.js';
import { openStore } from '../../src/store/index.js';
import { createTools } from '../../src/tools/registry.js';
import { ScriptedProvider } from '../compaction/helpers.js';
import { runSlash } from '../../src/commands/registry.js';
import { tempDir } from '../tempDirs.js';

// /init names a new session "/init" (issue 26), not after the long instruction it sends; a session
// that already has a title keeps it.

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter();
});

function open() {
  const dir = tempDir('agent-init-');
  const config = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: 'claude-sonnet-4-5' } });
  const store = openStore(config.dbPath);
  const session = Session.open({
    config,
    store,
    provider: new ScriptedProvider(() => ({ text: 'Drafted AGENTS.md.' })),
    tools: (lent) => createTools({ bash: config.bash }, lent),
    capabilities: [],
    counter,
  });
  return { session, store };
}

describe('/init and the session title', () => {
  it('a new session run with /init is titled "/init", in the store and the footer', async () => {
    const { session, store } = open();
    await runSlash({ session }, '/init');
    expect(store.getSession(session.id)?.title).toBe('/init');
    expect(session.view().title).toBe('/init');
    session.close();
    store.close();
  });

  it('a session with a title keeps it when /init runs later', async () => {
    const { session, store } = open();
    await session.prompt('fix the flaky login test');
    await runSlash({ session }, '/init');
    expect(store.getSession(session.id)?.title).toBe('fix the flaky login test');
    session.close();
    store.close();
  });
});
