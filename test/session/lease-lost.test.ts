import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTokenCounter, type TokenCounter } from '../../src/compaction/tokens.js';
import { loadConfig } from '../../src/config/config.js';
import { LEASE_HEARTBEAT_MS, SessionInUseError } from '../../src/session/lease.js';
import { Session } from '../../src/session/session.js';
import type { SessionEvent } from '../../src/protocol/events.js';
import { openStore } from '../../src/store/index.js';
import { createTools } from '../../src/tools/registry.js';
import type { ToolSession } from '../../src/tools/types.js';
import { ScriptedProvider } from '../compaction/helpers.js';
import { tempDir } from '../tempDirs.js';

// A session writer whose lease another process took over (it had gone silent too long) stops
// writing and says so; a live writer keeps others out; closing releases the lease.

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter();
});
afterEach(() => vi.useRealTimers());

function setup() {
  const dir = tempDir('agent-lease-');
  const config = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: 'claude-sonnet-4-5' } });
  const store = openStore(config.dbPath);
  const deps = {
    config,
    store,
    provider: new ScriptedProvider(() => ({ text: 'ok' })),
    tools: (lent: ToolSession) => createTools({ bash: config.bash }, lent),
    capabilities: [],
    counter,
  };
  return { store, deps };
}

describe('the session lease of a live session', () => {
  it('is taken when a new session is first stored, keeps a second process out, and is released on close', async () => {
    const { store, deps } = setup();
    const session = Session.open(deps);
    await session.prompt('hello');
    expect(store.getLease(session.id)?.pid).toBe(process.pid);
    // another process on another host holding it would be refused while this one renews
    const info = store.getSession(session.id)!;
    store.acquireLease(session.id, { token: 'x', pid: 1, host: 'elsewhere' }, () => true);
    expect(() => Session.open(deps, info)).toThrow(SessionInUseError);
    store.releaseLease(session.id, 'x');
    session.close();
    expect(store.getLease(session.id)).toBeUndefined();
    store.close();
  });

  it('stops saving and says so when another process took the lease over', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { store, deps } = setup();
    const session = Session.open(deps);
    const events: SessionEvent[] = [];
    session.on((e) => events.push(e));
    await session.prompt('first');
    const stored = store.getSession(session.id)!.messageCount;
    store.acquireLease(session.id, { token: 'thief', pid: 1, host: 'elsewhere' }, () => true);
    vi.advanceTimersByTime(LEASE_HEARTBEAT_MS + 10);
    const notice = events.find((e) => e.type === 'notice' && e.level === 'error');
    expect(notice && notice.type === 'notice' && notice.text).toContain(`Another agent process took over session ${session.id}`);
    await session.prompt('second');
    expect(store.getSession(session.id)!.messageCount).toBe(stored);
    session.close();
    expect(store.getLease(session.id)?.token).toBe('thief');
    store.close();
  });
});
