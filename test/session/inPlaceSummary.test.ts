import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { IN_PLACE_MARKER } from '../../src/compaction/prompt.js';
import { createTokenCounter, type TokenCounter } from '../../src/compaction/tokens.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import { textOf } from '../../src/llm/messages.js';
import type { ModelRequest } from '../../src/llm/provider.js';
import { Session } from '../../src/session/session.js';
import { openStore } from '../../src/store/index.js';
import { createTools } from '../../src/tools/registry.js';
import { isSummaryRequest, ScriptedProvider, SUMMARY } from '../compaction/helpers.js';
import { tempDir } from '../tempDirs.js';

// The session model's summary request reuses the cached prefix: same system prompt, same
// tools, the history as it is, the instruction appended as the last user message.

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter();
});

const LONG = 'A long answer about the code base with many details worth summarizing later on. '.repeat(40);

/** What a real provider would report as input for the request. */
const inputOf = (req: ModelRequest): number => counter.countText(req.system) + counter.countToolSpecs(req.tools) + counter.countMessages(req.messages);

function setup(rc: Record<string, unknown> = {}): Config {
  const dir = tempDir('agent-inplace-');
  const base = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: 'claude-sonnet-4-5' } });
  return { ...base, ...rc };
}

async function compactAfterTurns(config: Config, respondToSummary: (req: ModelRequest) => { text: string; stopReason?: 'tool_use' }) {
  const store = openStore(config.dbPath);
  const provider = new ScriptedProvider((req) =>
    isSummaryRequest(req) ? respondToSummary(req) : { text: `answer. ${LONG}`, usage: { inputTokens: inputOf(req) } },
  );
  const session = Session.open({ config, store, provider, tools: (lent) => createTools({ bash: config.bash }, lent), capabilities: [], counter });
  for (let i = 0; i < 8; i++) await session.prompt(`task ${i}`);
  const lastTurn = provider.requests.at(-1)!;
  const record = await session.compact();
  session.close();
  store.close();
  return { record, lastTurn, summaries: provider.requests.filter(isSummaryRequest) };
}

describe('in-place summary', () => {
  it('sends the session request as it stands plus the instruction', async () => {
    const { record, lastTurn, summaries } = await compactAfterTurns(setup(), () => ({ text: SUMMARY }));
    expect(record.reason ?? record.status).toBe('applied');
    expect(summaries).toHaveLength(1);
    const req = summaries[0]!;
    expect(req.system).toBe(lastTurn.system);
    expect(req.tools).toEqual(lastTurn.tools);
    // the last turn's request is a prefix of the summary request (its reply comes after it)
    expect(req.messages.slice(0, lastTurn.messages.length)).toEqual(lastTurn.messages);
    const instruction = req.messages.at(-1)!;
    expect(instruction.role).toBe('user');
    expect(textOf(instruction).startsWith(IN_PLACE_MARKER)).toBe(true);
    expect(textOf(instruction)).toMatch(/<kept_from>\ntask \d/);
    expect(req.cacheKey).toBeDefined();
  });

  it('falls back to the transcript path when the model calls a tool instead', async () => {
    let n = 0;
    const { record, summaries } = await compactAfterTurns(setup(), () => (n++ === 0 ? { text: '', stopReason: 'tool_use' } : { text: SUMMARY }));
    expect(record.reason ?? record.status).toBe('applied');
    expect(summaries).toHaveLength(2);
    expect(summaries[1]!.system).toContain('context checkpoints');
    expect(summaries[1]!.tools).toEqual([]);
  });

  it('is not used with caching off', async () => {
    const off = setup();
    const { record, summaries } = await compactAfterTurns({ ...off, cache: { ...off.cache, enabled: false } }, () => ({ text: SUMMARY }));
    expect(record.status).toBe('applied');
    expect(summaries.map((r) => r.system.includes('context checkpoints'))).toEqual([true]);
  });
});
