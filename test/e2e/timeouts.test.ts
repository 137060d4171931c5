import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSilentServer, type SilentServer } from '../fake-server/silent.js';
import { UNANSWERED_PROMPT_REPLY } from '../../src/session/repair.js';
import { jsonResult, runAgent, workspace, useFakeServer } from './inprocess.js';
import { describeEachProvider } from './regime.js';

// A provider that never answers, one that goes silent mid-reply, and one that answers with
// nothing: each stage has its own timeout from .agentrc, the person hears within seconds that
// nothing is coming, the total time is bounded and stated in the error, and an empty reply is
// a failed attempt (retried, then reported, never stored, never merged into the next prompt).

const server = useFakeServer();

let silent: SilentServer;
let silentURL = '';
beforeAll(async () => {
  silent = await startSilentServer();
  silentURL = silent.url;
});
afterAll(() => silent.close());

describe('timeouts', () => {
  it('a server that never answers: a status within seconds, then the first-byte timeout, stated with its setting', async () => {
    const ws = workspace({ timeouts: { firstByteMs: 6_000 }, retry: { maxAttempts: 1 } });
    const started = Date.now();
    const r = await runAgent(['-p', 'hello?'], { ws, server, env: { ANTHROPIC_BASE_URL: silentURL }, timeoutMs: 30_000 });
    const took = Date.now() - started;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('agent: no response yet from anthropic, 5 s… (timeouts in .agentrc)');
    expect(r.stderr).toContain(`no response from ${silentURL.slice(7)} within 6 s of sending the request (timeouts.firstByteMs)`);
    expect(took).toBeLessThan(15_000);
  });

  it('the total time over retries is bounded by timeouts.totalMs and stated in the error', async () => {
    const ws = workspace({ timeouts: { firstByteMs: 300, totalMs: 1_500 }, retry: { maxAttempts: 50, baseDelayMs: 5, maxDelayMs: 20 } });
    const started = Date.now();
    const r = await runAgent(['-p', 'hello?'], { ws, server, env: { ANTHROPIC_BASE_URL: silentURL }, timeoutMs: 30_000 });
    expect(r.code).toBe(1);
    const m = /gave up after (\d+) attempts over \d+ s \(no new attempt after 2 s: timeouts\.totalMs\)/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThanOrEqual(2);
    expect(Number(m![1])).toBeLessThan(10);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a reply that goes silent mid-stream is cut after timeouts.idleMs and retried', async () => {
    const ws = workspace({ timeouts: { idleMs: 400 }, retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 20 } });
    server.enqueue({ text: 'This reply will stall half way through.', cut: { afterFrames: 3, how: 'stall' } }, { text: 'Second time lucky.' });
    const r = await runAgent(['-p', 'hello?'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Second time lucky.\n');
    expect(r.stderr).toContain('the response stream stalled: no data for 0.4 s (timeouts.idleMs) — retrying');
  });
});

describeEachProvider('an empty completion from %s', (provider) => {
  it('is retried, then reported; never stored, and the next prompt is not merged with the unanswered one', async () => {
    const ws = workspace({ retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 20 } });
    server.enqueue({ text: '' }, { text: '' });
    const r = await runAgent(['-p', 'first question', '--output-format', 'json'], { ws, server, provider });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the model sent an empty reply (no text and no tool call) — gave up after 2 attempts');
    expect(server.requests).toHaveLength(2);

    server.clear();
    server.enqueue({ text: 'Answer to the second.' });
    const next = await runAgent(['-p', 'second question', '--continue', '--output-format', 'json'], { ws, server, provider });
    expect(next.code, next.stderr).toBe(0);
    expect(jsonResult(next).result).toBe('Answer to the second.');
    expect(next.stderr).toContain('Your previous message got no reply');
    const msgs = server.requests[0]!.view!.messages;
    const texts = msgs.map((m) => `${m.role}: ${m.blocks.map((b) => (b.type === 'text' ? b.text : b.type)).join('')}`);
    // the first user turn also carries the agent's date note (it leads the history)
    expect(texts[0]).toMatch(/^user: [\s\S]*first question$/);
    expect(texts.slice(1)).toEqual([`assistant: ${UNANSWERED_PROMPT_REPLY}`, 'user: second question']);
  });

  it('an empty reply followed by a real one is just a retry', async () => {
    const ws = workspace();
    server.enqueue({ text: '' }, { text: 'Here it is.' });
    const r = await runAgent(['-p', 'question'], { ws, server, provider });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Here it is.\n');
  });
});
