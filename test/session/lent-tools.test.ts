import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTokenCounter, type TokenCounter } from '../../src/compaction/tokens.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import { Session } from '../../src/session/session.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createTools } from '../../src/tools/registry.js';
import { spillThreshold, charsOfTokens } from '../../src/tools/spill.js';
import type { ToolSession } from '../../src/tools/types.js';
import { ScriptedProvider } from '../compaction/helpers.js';
import { tempDir } from '../tempDirs.js';

// What a session lends its built-in tools (session/assemble.ts): the result limit Recall cuts its
// pages to is the spill threshold of the run's settings; a session over a read-only store (a
// database that cannot be written) spills nothing, so it lends no limit, and Recall's pages keep
// their own size.

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter();
});

function open(config: Config, store: Store): { session: Session; lent: () => ToolSession } {
  let lent: ToolSession | undefined;
  const tools = (l: ToolSession) => {
    lent ??= l;
    return createTools({ bash: config.bash }, l);
  };
  const provider = new ScriptedProvider(() => ({ text: 'fine' }));
  const session = Session.open({ config, store, provider, tools, capabilities: [], counter });
  return { session, lent: () => lent! };
}

describe('the result limit a session lends its tools', () => {
  it("is the spill threshold's characters over a writable store, and none over a read-only one", async () => {
    const dir = tempDir('agent-lent-');
    const config = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: 'claude-sonnet-4-5' } });
    const store = openStore(config.dbPath);
    const writable = open(config, store);
    expect(writable.lent().resultChars?.('Recall')).toBe(charsOfTokens(spillThreshold('Recall', config.output)));
    expect(writable.lent().resultChars?.('Recall')).toBeGreaterThan(1_000);
    expect((await writable.session.prompt('hello')).reason).toBe('end_turn');
    writable.session.close();
    store.close();

    const readonly = openStore(config.dbPath, { readonly: true });
    // a session it opens stores nothing until its first message, so it opens (a resumed one needs the write lease)
    const reader = open(config, readonly);
    // mutation: 1 instead of 0 without a spill sink: Recall's pages cut to 1,000 characters
    expect(reader.lent().resultChars?.('Recall')).toBe(0);
    reader.session.close();
    readonly.close();
  });
});
