import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createGzip, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetch } from '../../src/llm/httpFetch.js';
import { HttpHeaders } from '../../src/llm/httpHeaders.js';

// The fetch under both SDKs (node:http): what the SDKs rely on of a Response, stage hooks,
// aborts at each stage, redirects, decoding, keep-alive, and network errors shaped as Node's
// fetch shapes them.

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
let server: Server;
let base = '';
const routes = new Map<string, Handler>();
const sockets = new Set<unknown>();

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const h = routes.get(new URL(req.url ?? '/', 'http://x').pathname);
      if (h) h(req, body, res);
      else res.writeHead(404).end('no route');
    });
  });
  server.on('connection', (s) => sockets.add(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

const route = (path: string, h: Handler): void => void routes.set(path, h);

describe('createFetch', () => {
  it('sends method, headers and body, and reads status, headers and body like a Response', async () => {
    route('/echo', (req, body, res) => {
      res.writeHead(201, 'Made', [
        ['Content-Type', 'application/json'],
        ['X-Multi', 'a'],
        ['X-Multi', 'b'],
      ]);
      res.end(JSON.stringify({ method: req.method, auth: req.headers['authorization'], len: req.headers['content-length'], body }));
    });
    const fetch = createFetch();
    const res = await fetch(`${base}/echo`, { method: 'post', headers: new HttpHeaders({ Authorization: 'Bearer k' }), body: 'héllo' });
    expect([res.ok, res.status, res.statusText, res.url]).toEqual([true, 201, 'Made', `${base}/echo`]);
    expect(res.headers.get('CONTENT-TYPE')).toBe('application/json');
    expect(res.headers.get('x-multi')).toBe('a, b');
    expect(await res.json()).toEqual({ method: 'POST', auth: 'Bearer k', len: String(Buffer.byteLength('héllo')), body: 'héllo' });
    // read again (the tap keeps an error body; the SDK then reads it too)
    expect(JSON.parse(await res.text()).body).toBe('héllo');
  });

  it('streams the body chunk by chunk, reporting each, after reporting the request sent', async () => {
    // The server writes its next chunk only once the client has read the one before, so no timing
    // merges two chunks on a loaded machine. A fetch that buffered the whole body would never hand
    // over the first chunk: the deadline below fails it at once instead of the test's time-out.
    const more: (() => void)[] = [];
    route('/stream', (_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('one\n');
      more.push(
        () => res.write('two\n'),
        () => res.end('three\n'),
      );
    });
    const seen: string[] = [];
    const fetch = createFetch({ sent: () => seen.push('sent'), data: () => seen.push('data') });
    const res = await fetch(`${base}/stream`, { method: 'POST', body: '{}' });
    expect(seen).toEqual(['sent']);
    const chunks: string[] = [];
    const reader = res.body[Symbol.asyncIterator]();
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`chunk ${chunks.length + 1} was not handed over while the server waited: the body is not streamed`)), 5_000);
      });
      const next = await Promise.race([reader.next(), deadline]).finally(() => clearTimeout(timer));
      if (next.done) break;
      chunks.push(Buffer.from(next.value as Uint8Array).toString());
      more.shift()?.();
    }
    expect(chunks).toEqual(['one\n', 'two\n', 'three\n']);
    expect(seen).toEqual(['sent', 'data', 'data', 'data']);
  });

  it("cuts an event stream's chunks after every 16th event, across chunk borders and CRLF too; other bodies come as read", async () => {
    // 40 events in one write, then a blank line split across two writes, then CRLF events
    const first = Array.from({ length: 40 }, (_, i) => `data: ${i}\n\n`).join('');
    const crlf = Array.from({ length: 20 }, (_, i) => `data: r${i}\r\n\r\n`).join('');
    // each write waits until the client has read the last one's end, so no two reach it as one read
    const more: Array<[string, () => void]> = [];
    route('/events', (_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      res.write(first);
      more.push(['data: 39\n\n', () => res.write('data: split\n')], ['data: split\n', () => res.end(`\n${crlf}`)]);
    });
    route('/plain', (_req, _body, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(first));
    const fetch = createFetch();
    const pieces: string[] = [];
    for await (const chunk of (await fetch(`${base}/events`, {})).body) {
      pieces.push(Buffer.from(chunk).toString());
      if (more[0] && pieces.join('').endsWith(more[0][0])) more.shift()![1]();
    }
    const ends = (piece: string): number => piece.split(/\r?\n\r?\n/).length - 1;
    expect(pieces.join('')).toBe(`${first}data: split\n\n${crlf}`);
    // mutation: the body handed over as read (no EventCuts) → a piece holds the first write's 40 events;
    // the bytes before a chunk not carried (EventCuts.last) → no piece ends after the 48th
    expect(Math.max(...pieces.map(ends))).toBeLessThanOrEqual(16);
    // pieces end right after the 16th, the 32nd and the 48th event (the 41st's blank line split across two reads, then 7 CRLF ones)
    const whole = pieces.join('');
    const eventEnds = [...whole.matchAll(/\r?\n\r?\n/g)].map((m) => m.index + m[0].length);
    const pieceEnds = pieces.map((_, i) => pieces.slice(0, i + 1).join('').length);
    expect([16, 32, 48].map((n) => pieceEnds.includes(eventEnds[n - 1]!))).toEqual([true, true, true]);
    const plain: string[] = [];
    for await (const chunk of (await fetch(`${base}/plain`, {})).body) plain.push(Buffer.from(chunk).toString());
    expect(plain).toEqual([first]);
  }, 5_000);

  it('an abort before the response rejects with an AbortError', async () => {
    route('/never', () => {});
    const ac = new AbortController();
    const p = createFetch()(`${base}/never`, { signal: ac.signal });
    setTimeout(() => ac.abort(), 30);
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    await expect(createFetch()(`${base}/never`, { signal: ac.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('an abort while the body streams ends the body with an AbortError', async () => {
    route('/slow', (_req, _body, res) => {
      res.writeHead(200);
      res.write('first');
    });
    const ac = new AbortController();
    const res = await createFetch()(`${base}/slow`, { signal: ac.signal });
    const it = res.body[Symbol.asyncIterator]();
    expect(Buffer.from((await it.next()).value as Uint8Array).toString()).toBe('first');
    setTimeout(() => ac.abort(), 20);
    await expect(it.next()).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('a connection dropped before the body is read fails the read, not the process', async () => {
    route('/drop', (_req, _body, res) => {
      res.writeHead(200);
      res.write('part');
      setTimeout(() => res.destroy(), 10);
    });
    const res = await createFetch()(`${base}/drop`);
    await new Promise((r) => setTimeout(r, 60));
    await expect(res.text()).rejects.toThrow(/aborted/);
  });

  it('stopping early closes the connection instead of reading on, a decoded body too', async () => {
    route('/endless', (_req, _body, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      const gz = createGzip();
      gz.pipe(res);
      const t = setInterval(() => {
        gz.write('x'.repeat(100));
        gz.flush();
      }, 5);
      res.on('close', () => {
        clearInterval(t);
        endlessClosed = true;
      });
    });
    let endlessClosed = false;
    const res = await createFetch()(`${base}/endless`);
    for await (const _ of res.body) break;
    await new Promise((r) => setTimeout(r, 100));
    expect(endlessClosed).toBe(true);
  });

  it('reuses a kept-alive connection for the next request', async () => {
    route('/small', (_req, _body, res) => res.end('ok'));
    const fetch = createFetch();
    expect(await (await fetch(`${base}/small`)).text()).toBe('ok');
    const before = sockets.size;
    expect(await (await fetch(`${base}/small`)).text()).toBe('ok');
    expect(sockets.size).toBe(before);
  });

  it('closes a kept-alive connection once it has been idle for the idle time, but never an active one', async () => {
    const closed: string[] = [];
    route('/idle', (req, _body, res) => {
      req.socket.once('close', () => closed.push('idle'));
      res.end('ok');
    });
    route('/quiet', (_req, _body, res) => {
      // silent for longer than the idle time before it answers
      setTimeout(() => res.end('late'), 250);
    });
    const fetch = createFetch({}, { idleSocketMs: 100 });
    // an active request outlives the idle time
    expect(await (await fetch(`${base}/quiet`)).text()).toBe('late');
    expect(await (await fetch(`${base}/idle`)).text()).toBe('ok');
    expect(closed).toEqual([]);
    await new Promise((r) => setTimeout(r, 300));
    expect(closed).toEqual(['idle']);
  });

  it('follows redirects: 307 keeps the method and body, 303 turns into a GET, other origins lose the key', async () => {
    route('/r307', (_req, _body, res) => res.writeHead(307, { location: '/echo2' }).end());
    route('/r303', (_req, _body, res) => res.writeHead(303, { location: `${base}/echo2` }).end());
    route('/echo2', (req, body, res) => res.end(`${req.method} ${body} ${req.headers['authorization'] ?? '-'}`));
    const fetch = createFetch();
    const moved = await fetch(`${base}/r307`, { method: 'POST', body: 'B', headers: { authorization: 'k' } });
    expect([await moved.text(), moved.url, moved.redirected]).toEqual(['POST B k', `${base}/echo2`, true]);
    expect(await (await fetch(`${base}/r303`, { method: 'POST', body: 'B' })).text()).toBe('GET  -');
    const other = base.replace('127.0.0.1', 'localhost');
    route('/away', (_req, _body, res) => res.writeHead(302, { location: `${other}/echo2` }).end());
    expect(await (await fetch(`${base}/away`, { headers: { authorization: 'k' } })).text()).toBe('GET  -');
    route('/loop', (_req, _body, res) => res.writeHead(302, { location: '/loop' }).end());
    await expect(fetch(`${base}/loop`)).rejects.toThrow(/more than 10 redirects/);
  });

  it('decodes a gzip body', async () => {
    route('/gz', (_req, _body, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('packed')));
    expect(await (await createFetch()(`${base}/gz`)).text()).toBe('packed');
  });

  it('a refused connection fails as Node fetch does: TypeError("fetch failed") caused by the socket error', async () => {
    const e = await createFetch()('http://127.0.0.1:9/x').catch((err: unknown) => err);
    expect(e).toBeInstanceOf(TypeError);
    expect((e as Error).message).toBe('fetch failed');
    expect(((e as Error).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('refuses what it cannot send, naming it', async () => {
    await expect(createFetch()('ftp://127.0.0.1/x')).rejects.toThrow(/unsupported protocol "ftp:"/);
    await expect(createFetch()(`${base}/echo`, { method: 'POST', body: 42 })).rejects.toThrow(/request body must be/);
  });
});

describe('createFetch over https', () => {
  it('verifies the server certificate: a self-signed one fails with the TLS error as cause', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-tls-'));
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stdio: 'ignore' },
    );
    const tls = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => res.end('secret'));
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    try {
      const e = await createFetch()(`https://127.0.0.1:${(tls.address() as AddressInfo).port}/`).catch((err: unknown) => err);
      expect((e as Error).message).toBe('fetch failed');
      expect(((e as Error).cause as NodeJS.ErrnoException).code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    } finally {
      tls.closeAllConnections();
      await new Promise<void>((r) => tls.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('HttpHeaders', () => {
  it('keeps names case-insensitively, combines repeats, iterates sorted by name', () => {
    const h = new HttpHeaders([
      ['B', '2'],
      ['a', '1'],
    ]);
    h.append('b', '3');
    expect([...h]).toEqual([
      ['a', '1'],
      ['b', '2, 3'],
    ]);
    h.set('B', ' 4 ');
    h.delete('A');
    expect([...h.entries()]).toEqual([['b', '4']]);
    expect(h.has('b') && !h.has('a')).toBe(true);
    expect(new HttpHeaders(h).get('b')).toBe('4');
  });

  it('refuses bad names and values with line breaks', () => {
    expect(() => new HttpHeaders({ 'bad name': 'x' })).toThrow(/"bad name" is not a valid header name/);
    expect(() => new HttpHeaders({ ok: 'a\r\nInjected: 1' })).toThrow(/line break/);
  });
});
