import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonResult, runAgent, useFakeServer, workspace } from './inprocess.js';

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

    // as advised: saved to a file and mentioned, it goes through the spill rule and fits
    writeFileSync(join(ws.dir, 'paste.txt'), `${huge}\n`);
    server.enqueue({ text: 'Read the preview.' });
    const attached = await runAgent(['-p', 'what is in @paste.txt', '--model', model, '--continue', '--output-format', 'json'], {
      ws,
      server,
      provider: 'anthropic',
    });
    expect(attached.code, attached.stderr).toBe(0);
    const id = String(jsonResult(attached).session_id);
    const request = server.requests.at(-1)!;
    const prompt = request.view!.messages.at(-1)!.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : []));
    const block = prompt.find((t) => t.startsWith('[Attached by the user with @paste.txt'))!;
    expect(block).toMatch(/^\[Attached by the user with @paste\.txt: too large to attach whole, archived as o1\]\n\[output o1: 6,000 lines, /);
    expect(block.trimEnd().endsWith(`6000\t${huge.split('\n').at(-1)}`), 'the last line is in the preview').toBe(true);
    expect(block.length).toBeLessThan(6_000);
    expect(JSON.stringify(request.body).length, 'the request fits the small window').toBeLessThan(40_000);

    // the model reads the rest by handle: a line range and a pattern, exactly
    server.enqueue(
      {
        toolCalls: [
          { name: 'Recall', input: { id: 'o1', offset: 3000, limit: 2 } },
          { name: 'Recall', input: { id: 'o1', pattern: '^\\s*4243\\t', context: 0 } },
        ],
      },
      { text: 'read' },
    );
    const recalled = await runAgent(['-p', 'read lines 3000-3001 and 4243', '--model', model, '--continue'], { ws, server, provider: 'anthropic' });
    expect(recalled.code, recalled.stderr).toBe(0);
    const results = server.requests
      .at(-1)!
      .view!.messages.at(-1)!
      .blocks.flatMap((b) => (b.type === 'tool_result' ? [typeof b.content === 'string' ? b.content : JSON.stringify(b.content)] : []));
    const lines = huge.split('\n');
    expect(results[0]).toContain(`  3000\t${lines[2999]}\n  3001\t${lines[3000]}`);
    expect(results[1]).toContain(`4243\t${lines[4242]}`);
    expect(results[1]).not.toContain(lines[4243]!);

    // the person reads the whole file where the session is shown or exported, a middle line included
    const shown = await runAgent(['sessions', 'show', id, '--spilled'], { ws });
    expect(shown.stdout).toContain(`[the whole file, o1:]\n     1\t${lines[0]}`);
    expect(shown.stdout).toContain(`  3000\t${lines[2999]}`);
    const md = await runAgent(['sessions', 'export', id, '--format', 'md'], { ws });
    expect(md.stdout).toContain('The whole file (o1):');
    expect(md.stdout).toContain(`  3000\t${lines[2999]}`);
  });

  it("a new session's first prompt may attach a file too large to attach whole: its archive row follows the session's", async () => {
    const ws = workspace();
    const huge = Array.from({ length: 6_000 }, (_, i) => `line ${i}: value ${(i * 7919) % 10007}`).join('\n');
    writeFileSync(join(ws.dir, 'paste.txt'), `${huge}\n`);
    server.enqueue({ text: 'Read the preview.' });
    const r = await runAgent(['-p', 'what is in @paste.txt', '--output-format', 'json'], { ws, server, provider: 'anthropic' });
    expect(r.code, r.stderr).toBe(0);
    const prompt = JSON.stringify(server.requests.at(-1)!.view!.messages.at(-1));
    expect(prompt).toContain('too large to attach whole, archived as o1');
    const shown = await runAgent(['sessions', 'show', String(jsonResult(r).session_id)], { ws });
    expect(shown.code, shown.stderr).toBe(0);
  });
});
// Mutation: the spill sink's session getter without log.ensureStored() (the date note appended after
// the mentions are read, as since the refusal of an unreadable @image) fails the last test with
// "Could not archive a spilled output: FOREIGN KEY constraint failed".
