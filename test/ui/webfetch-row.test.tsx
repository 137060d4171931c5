import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import stripAnsi from 'strip-ansi';
import { ItemView } from '../../src/ui/components/ItemView.js';
import type { ToolItem } from '../../src/ui/transcript.js';
import { createWebFetchTool } from '../../src/web/webFetch.js';
import type { ToolContext } from '../../src/tools/types.js';

// The row of a WebFetch in the transcript: its header names the URL (the key argument) and the
// line under it says what came back: the final URL, the status, the type and the size. The
// output is the real tool's, fetched from a local server.

afterEach(() => cleanup());

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<html><head><title>Release notes</title></head><body><main><h1>Release notes</h1>${'<p>A paragraph of notes.</p>'.repeat(200)}</main></body></html>`,
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('the WebFetch row', () => {
  it('shows the URL and the size of the page', async () => {
    const tool = createWebFetchTool({ maxBytes: 1_000_000, timeoutMs: 5_000, allowPrivate: ['127.0.0.1'] });
    const url = `${base}/notes`;
    const out = await tool.run(tool.parse({ url, prompt: 'what changed?' }), { cwd: '/', signal: new AbortController().signal } as ToolContext);
    const item: ToolItem = { kind: 'tool', id: 'x', toolUseId: 'tu', name: 'WebFetch', summary: url, status: 'done', durationMs: 120, output: out.content };
    const r = render(<ItemView item={item} />);
    const frame = stripAnsi(r.lastFrame() ?? '');
    r.unmount();
    // the header: the URL (the call's key argument); the line under it: the size, then the URL fetched (cut at the row's end)
    // mutation: a first line with the size after a long URL and content type (it was cut off the row), or the title first, fails these
    expect(frame).toContain(`✓ WebFetch ${url} · 120ms`);
    expect(frame).toMatch(/⎿ Fetched 5\.\d KB, HTTP 200, text\/html: http:\/\/127\.0\.0\.1:/);
  });
});
