import { describe, expect, it } from 'vitest';
import { runAgent, useFakeServer, workspace } from './harness.js';

// A prompt larger than the window is refused before it is sent: no request, nothing stored,
// a usage error (exit 2) that says to attach it as a file. It used to be sent anyway (three
// compaction attempts, a raw "prompt is too long", the previous turn archived for nothing).

const server = useFakeServer();
const model = 'small-16k';

describe('a prompt larger than the window', () => {
  it('-p refuses it before sending, exits 2 and suggests a file; the session keeps nothing of it', async () => {
    const ws = workspace({ models: { [model]: { contextWindow: 16_384, maxOutputTokens: 1024, provider: 'anthropic' } } });
    server.settings.contextWindow = { [model]: 16_384 };
    server.enqueue({ text: 'First answer.' });
    const first = await runAgent(['-p', 'hello', '--model', model], { ws, server, provider: 'anthropic' });
    expect(first.code, first.stderr).toBe(0);
    const sent = server.requests.length;

    const huge = Array.from({ length: 6_000 }, (_, i) => `line ${i}: value ${(i * 7919) % 10007}`).join('\n');
    const r = await runAgent(['-p', huge, '--model', model, '--continue'], { ws, server, provider: 'anthropic' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^agent: This prompt is about [\d,]+ tokens; .* more than the [\d,]+ tokens that small-16k's 16,384-token window leaves for input, so it was not sent \(nothing was stored\)\. Save the text to a file/,
    );
    expect(server.requests.length, 'nothing was sent').toBe(sent);

    // the session goes on as before: the refused prompt is not in its history
    server.enqueue({ text: 'Second answer.' });
    const next = await runAgent(['-p', 'and now?', '--model', model, '--continue'], { ws, server, provider: 'anthropic' });
    expect(next.code, next.stderr).toBe(0);
    const texts = JSON.stringify(server.requests.at(-1)!.view!.messages);
    expect(texts).toContain('hello');
    expect(texts).not.toContain('line 5999');
    expect(next.stderr).not.toMatch(/no reply|unanswered/);
  });
});
