import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { historyCommand } from '../../src/commands/history.js';
import { createTokenCounter, type TokenCounter } from '../../src/compaction/tokens.js';
import { loadConfig } from '../../src/config/config.js';
import { Session } from '../../src/session/session.js';
import { openStore } from '../../src/store/index.js';
import { createTools } from '../../src/tools/registry.js';
import { ScriptedProvider } from '../compaction/helpers.js';
import { tempDir } from '../tempDirs.js';

// /history over a real session with nothing archived yet (test/session/uncompact.test.ts finds
// what a rewind archived): what it says for each shape of what was typed.

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter();
});

describe('/history', () => {
  it('words search (nothing yet, no more on page 2); no words is the usage; open names the id it lacks', async () => {
    const dir = tempDir('agent-history-cmd-');
    const config = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: 'claude-sonnet-4-5' } });
    const store = openStore(config.dbPath);
    const provider = new ScriptedProvider(() => ({ text: 'ok' }));
    const session = Session.open({ config, store, provider, tools: (lent) => createTools({ bash: config.bash }, lent), capabilities: [], counter });
    expect(await historyCommand(session, ' zebras ')).toEqual({ kind: 'text', text: 'Nothing archived matches "zebras".' });
    expect(await historyCommand(session, 'zebras page 2')).toEqual({ kind: 'text', text: 'No more results for "zebras".' });
    // page 0 is the first page; the word in any case
    expect(await historyCommand(session, 'zebras PAGE 0')).toEqual({ kind: 'text', text: 'Nothing archived matches "zebras".' });
    const usage = 'usage: /history <words to search> [page N], or /history open <id>';
    await expect(historyCommand(session, '')).rejects.toThrow(usage);
    await expect(historyCommand(session, '  page 3')).rejects.toThrow(usage);
    await expect(historyCommand(session, 'open m_404')).rejects.toThrow('nothing archived has the id m_404');
    // what was typed is trimmed before "open" is looked for: not a search for the words "open m_404"
    await expect(historyCommand(session, '  open m_404 ')).rejects.toThrow('nothing archived has the id m_404');
    session.close();
    store.close();
  });
});
