import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonResult, runAgent, useFakeServer, workspace } from './inprocess.js';

// WebFetch end to end in print mode against a local HTTP server: pages come back as Markdown
// without script, style and navigation, a 3 MB page is spilled with its last line in view,
// file:// and a redirect to another host are refused with clear results, and a domain not
// allowed in -p is refused while the turn goes on. The tests allow 127.0.0.1 (web.allowPrivate).

const server = useFakeServer();
let web: Server;
let base = '';

const ARTICLE = `<!doctype html><html><head><title>Release notes 4.2</title><style>.x{color:red}</style>
<script>window.tracker = "SCRIPT-MARKER";</script></head><body>
<nav><a href="/">Home</a> <a href="/docs">NAV-MARKER</a></nav>
<header><h1>Site header</h1></header>
<main><article><h1>Release notes 4.2</h1>
<p>The <code>--frobnicate</code> flag is new in this release. It turns frobnication on for every run, and it is off by default.</p>
<h2>Breaking changes</h2><ul><li>The config file moved to <em>~/.config/tool</em>.</li><li>Node 18 is no longer supported.</li></ul>
<p>Upgrade by running the installer again; your settings are kept. More words so that the article is long enough for reader mode to take it as the content.</p>
</article></main><footer>FOOTER-MARKER</footer><script>alert("SCRIPT-TWO")</script></body></html>`;

const BIG_LINES = 65_000;
const bigPage = (): string =>
  `<!doctype html><html><head><title>Big</title></head><body><main>${Array.from({ length: BIG_LINES }, (_, i) => `<p>paragraph number ${i + 1} of the big page.</p>`).join('\n')}<p>THE-LAST-LINE</p></main></body></html>`;

beforeAll(async () => {
  const big = bigPage();
  web = createServer((req, res) => {
    if (req.url === '/notes') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE);
    else if (req.url === '/big') res.writeHead(200, { 'content-type': 'text/html' }).end(big);
    else if (req.url === '/away') res.writeHead(302, { location: `http://localhost:${(web.address() as AddressInfo).port}/notes` }).end();
    else if (req.url === '/here') res.writeHead(301, { location: '/notes' }).end();
    else res.writeHead(404).end('not found');
  });
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
  expect(big.length).toBeGreaterThan(3_000_000);
});
afterAll(() => new Promise<void>((r) => web.close(() => r())));

const allowed = { web: { allowPrivate: ['127.0.0.1'] }, permissions: { allowTools: ['WebFetch(domain:127.0.0.1)'] } };
/** The tool_result contents of request n (1-based). */
const resultsIn = (n: number): { content: string; isError: boolean }[] =>
  (server.requests[n - 1]?.view?.messages ?? []).flatMap((m) =>
    m.blocks.flatMap((b) => (b.type === 'tool_result' ? [{ content: b.content, isError: b.isError }] : [])),
  );

describe('WebFetch', () => {
  it('returns a page as Markdown with its title and URL on top, without script, style and navigation', async () => {
    const ws = workspace(allowed);
    server.enqueue({ toolCalls: [{ name: 'WebFetch', input: { url: `${base}/here`, prompt: 'what is new?' } }] }, { text: 'frobnicate is new' });
    const r = await runAgent(['-p', 'what is new in 4.2?', '--output-format', 'json'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    expect(jsonResult(r).result).toBe('frobnicate is new');
    const [page] = resultsIn(2);
    expect(page!.isError).toBe(false);
    // the same-host redirect was followed
    expect(page!.content).toMatch(
      new RegExp(`^Fetched [\\d.]+ K?B, HTTP 200, text/html: ${base}/notes\\nAsked: what is new\\?\\n\\n# Release notes 4\\.2\\n\\n`),
    );
    expect(page!.content).toContain('`--frobnicate` flag is new');
    expect(page!.content).toMatch(/## Breaking changes\n\n-\s+The config file moved to _~\/.config\/tool_\./);
    // mutation: handing turndown the raw HTML (no Readability, nothing removed) fails these
    for (const marker of ['SCRIPT-MARKER', 'SCRIPT-TWO', 'NAV-MARKER', 'FOOTER-MARKER', 'color:red']) expect(page!.content).not.toContain(marker);
  }, 30_000);

  it('spills a 3 MB page: the model gets its head and tail (the last line in view) and a handle', async () => {
    const ws = workspace(allowed);
    server.enqueue({ toolCalls: [{ name: 'WebFetch', input: { url: `${base}/big`, prompt: 'the end?' } }] }, { text: 'done' });
    const r = await runAgent(['-p', 'read the big page'], { ws, server, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const [page] = resultsIn(2);
    // mutation: returning the page whole (or cutting it at a size) fails these
    expect(page!.content).toMatch(/^\[output o1: [\d,]+ lines, [\d.]+ MB;/);
    expect(page!.content).toContain('THE-LAST-LINE');
    expect(page!.content).toContain('# Big');
    expect(page!.content.length).toBeLessThan(20_000);
  }, 70_000);

  it('refuses file:// and a redirect to another host with clear results, and the turn goes on', async () => {
    const ws = workspace(allowed);
    server.enqueue(
      {
        toolCalls: [
          { name: 'WebFetch', input: { url: 'file:///etc/passwd', prompt: 'x' } },
          { name: 'WebFetch', input: { url: `${base}/away`, prompt: 'x' } },
        ],
      },
      { text: 'could not' },
    );
    const r = await runAgent(['-p', 'fetch them', '--output-format', 'json'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    expect(jsonResult(r).result).toBe('could not');
    const [file, away] = resultsIn(2);
    expect(file!.isError).toBe(true);
    expect(file!.content).toContain('WebFetch reads http and https pages only; file:// is refused');
    expect(away!.isError).toBe(true);
    expect(away!.content).toMatch(/redirects \(302\) to another host: http:\/\/localhost:\d+\/notes\. It was not followed/);
  }, 30_000);

  it('in -p refuses a domain not allowed, naming the rule that would allow it, and the turn goes on', async () => {
    const ws = workspace({ web: { allowPrivate: ['127.0.0.1'] } });
    server.enqueue({ toolCalls: [{ name: 'WebFetch', input: { url: `${base}/notes`, prompt: 'x' } }] }, { text: 'not allowed, moving on' });
    const r = await runAgent(['-p', 'fetch it', '--output-format', 'json'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    expect(jsonResult(r).result).toBe('not allowed, moving on');
    const [refused] = resultsIn(2);
    expect(refused!.isError).toBe(true);
    expect(refused!.content).toContain("needs the user's approval");
    expect(refused!.content).toContain('--allowed-tools "WebFetch(domain:127.0.0.1)"');
    // mutation: a domain rule that allowed every host would have fetched it: no page in the result
    expect(refused!.content).not.toContain('Release notes');
  }, 30_000);

  it('refuses a loopback address not listed in web.allowPrivate, though the domain is allowed', async () => {
    const ws = workspace({ permissions: { allowTools: ['WebFetch(domain:127.0.0.1)', 'WebFetch(domain:localhost)'] } });
    server.enqueue(
      {
        toolCalls: [
          { name: 'WebFetch', input: { url: `${base}/notes`, prompt: 'x' } },
          { name: 'WebFetch', input: { url: `${base.replace('127.0.0.1', 'localhost')}/notes`, prompt: 'x' } },
        ],
      },
      { text: 'ok' },
    );
    const r = await runAgent(['-p', 'fetch it'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    const [ip, name] = resultsIn(2);
    expect(ip!.content).toMatch(/^127\.0\.0\.1 is a private or loopback address; WebFetch does not reach the local network unless/);
    // a name that resolves to loopback is caught at the connection, not by its spelling
    expect(name!.content).toMatch(/^localhost is a private or loopback address.*\(localhost resolves to /);
  }, 30_000);
});
