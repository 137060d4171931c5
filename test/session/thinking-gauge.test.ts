import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTokenCounter, type TokenCounter } from '../../src/compaction/tokens.js';
import { loadConfig } from '../../src/config/config.js';
import { emptyUsage } from '../../src/llm/messages.js';
import type { ModelRequest, Provider, StreamEvent } from '../../src/llm/provider.js';
import { Session } from '../../src/session/session.js';
import { openStore } from '../../src/store/index.js';
import { createTools } from '../../src/tools/registry.js';
import { tokensText } from '../compaction/helpers.js';
import { tempDir } from '../tempDirs.js';

// The session tells the engine which thinking its model keeps in context (the capabilities'
// keepsThinking): the 5 family keeps every replayed block, older Claude models only the
// current turn's. The same three thinking replies weigh on the gauge in the one and not the other.

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter();
});

const THOUGHT = tokensText(1_500, 'th');

/** Replies that think, then answer; reports no input figure, so the gauge is the estimate alone. */
class ThinkingProvider implements Provider {
  readonly name = 'anthropic' as const;
  async *stream(req: ModelRequest): AsyncIterable<StreamEvent> {
    yield { type: 'thinking_delta', text: THOUGHT };
    yield { type: 'text_delta', text: 'done' };
    yield {
      type: 'done',
      blocks: [
        { type: 'thinking', thinking: THOUGHT, signature: 'sig' },
        { type: 'text', text: 'done' },
      ],
      stopReason: 'end_turn',
      usage: { ...emptyUsage(), outputTokens: 10 },
      model: req.model,
    };
  }
}

async function gaugeAfterTurns(model: string): Promise<{ tokens: number; keeps: boolean | undefined; streamed: string[] }> {
  const dir = tempDir('agent-thinking-gauge-');
  const config = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model } });
  const store = openStore(config.dbPath);
  const session = Session.open({
    config,
    store,
    provider: new ThinkingProvider(),
    tools: (lent) => createTools({ bash: config.bash }, lent),
    capabilities: [],
    counter,
  });
  const streamed: string[] = [];
  session.on((e) => void (e.type === 'thinking_delta' && streamed.push(e.text)));
  try {
    for (let i = 0; i < 3; i++) await session.prompt(`task ${i}`);
    return { tokens: session.contextUsage().tokens, keeps: config.capabilities?.keepsThinking, streamed };
  } finally {
    session.close();
    store.close();
  }
}

describe('the gauge and replayed thinking', () => {
  it('counts finished turns’ thinking on the 5 family and leaves it out where the API strips it', async () => {
    const kept = await gaugeAfterTurns('claude-sonnet-5-5');
    const stripped = await gaugeAfterTurns('claude-sonnet-4-5');
    expect(kept.keeps).toBe(true);
    expect(stripped.keeps).toBe(false);
    const thought = counter.countText(THOUGHT);
    // three finished turns' thinking, give or take the model's name in the system prompt
    expect(Math.abs(kept.tokens - stripped.tokens - 3 * thought)).toBeLessThan(20);
    // the thinking streams to the front ends as it comes, each turn's once
    expect(kept.streamed).toEqual([THOUGHT, THOUGHT, THOUGHT]);
  });
});
