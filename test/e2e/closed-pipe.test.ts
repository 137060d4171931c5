import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { UNANSWERED_PROMPT_REPLY } from '../../src/session/repair.js';
import { openStore } from '../../src/store/index.js';
import { textOf } from '../../src/llm/messages.js';
import { AGENT_BIN, agentEnv, runAgent, useFakeServer, workspace } from './harness.js';

// `agent -p … --output-format events | head -1`: the reader goes away after one line.
// The run used to exit at once, leaving the session with a prompt and no reply; it now ends
// the turn and marks the prompt as unanswered.

const server = useFakeServer();

describe('a -p run whose reader closes the pipe', () => {
  it('ends the turn, exits 0 and marks the prompt that got no reply', async () => {
    const ws = workspace();
    // a reply slow to come: the pipe closes before any of it
    server.enqueue({ text: 'A slow answer that never gets read.', chunkSize: 4, frameDelayMs: 300 });
    let firstLine = '';
    const r = await runAgent(['-p', 'tell me something', '--output-format', 'events'], {
      ws,
      server,
      onSpawn: (child) => {
        let seen = '';
        child.stdout!.on('data', (d: Buffer | string) => {
          seen += d.toString();
          const nl = seen.indexOf('\n');
          if (nl !== -1 && firstLine === '') {
            firstLine = seen.slice(0, nl);
            child.stdout!.destroy(); // what `head -1` does once it has its line
          }
        });
      },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(firstLine)).toMatchObject({ type: 'turn_start' });
    const store = openStore(ws.db);
    try {
      const session = store.latestSession()!;
      const visible = store.loadVisible(session.id);
      const prompt = visible.findIndex((m) => m.role === 'user' && textOf(m).includes('tell me something'));
      expect(prompt).toBeGreaterThanOrEqual(0);
      const reply = visible[prompt + 1];
      expect(reply, 'the prompt is not left dangling').toBeDefined();
      expect(reply).toMatchObject({ role: 'assistant', interrupted: true });
      expect(textOf(reply!)).toBe(UNANSWERED_PROMPT_REPLY);
    } finally {
      store.close();
    }
  });
});

describe('`agent sessions` whose reader closes the pipe', () => {
  // (from bad-input.test.ts, which runs in-process: the pipe between two processes is the subject here)
  it('a reader that stops early (| head) ends `sessions show` quietly: no EPIPE trace, exit 0', () => {
    const ws = workspace();
    const store = openStore(ws.db);
    store.createSession({ id: 's_long', cwd: ws.dir, provider: 'anthropic', model: 'claude-sonnet-4-5' });
    for (let i = 0; i < 200; i++) {
      store.appendMessage(
        's_long',
        { id: `m${i}`, role: i % 2 ? 'assistant' : 'user', kind: 'normal', createdAt: i, blocks: [{ type: 'text', text: `line ${i} ${'x'.repeat(2000)}` }] },
        1,
      );
    }
    store.close();
    for (const args of [['sessions', 'show', 's_long'], ['sessions', 'export', 's_long', '--format', 'jsonl'], ['sessions']]) {
      const r = spawnSync('bash', ['-c', `node "${AGENT_BIN}" ${args.join(' ')} | head -c 100 > /dev/null; echo "agent exit \${PIPESTATUS[0]}" >&2`], {
        cwd: ws.dir,
        env: agentEnv({ ws }),
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(r.stderr, args.join(' ')).toBe('agent exit 0\n');
    }
  });
});
