// Fetching one web page for WebFetch, within limits: http and https only; a private, loopback or
// link-local address refused (checked on the address the connection really goes to, so a name
// that resolves to 127.0.0.1 is caught too) unless the host is in `allowPrivate`; at most
// `maxBytes` of body and `timeoutMs` in all; a redirect to the same host followed (up to
// MAX_REDIRECTS), one to another host reported, never followed. It never throws: a failure is a
// sentence the model can act on.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

export interface FetchLimits {
  maxBytes: number;
  timeoutMs: number;
  /** Hosts or addresses that may be private or loopback (the tests' 127.0.0.1). */
  allowPrivate: readonly string[];
}

export type FetchedPage =
  | { ok: true; url: string; status: number; contentType: string; body: Buffer; truncated: boolean }
  | { ok: false; why: string; redirect?: string };

const MAX_REDIRECTS = 5;

/** Addresses no web page of the internet lives at: loopback, private ranges, link-local, CGNAT, unspecified. */
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv6');

/** Whether an address is private, loopback or link-local (an IPv4-mapped IPv6 address by its IPv4 part). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  return family === 4 ? PRIVATE.check(address, 'ipv4') : family === 6 ? PRIVATE.check(address, 'ipv6') : false;
}

class PrivateAddressError extends Error {}

/** A DNS lookup that refuses a private answer unless the host or the address is allowed. */
function guardedLookup(host: string, allow: readonly string[]): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const allowed = allow.includes(host) || allow.includes(hostname);
      const usable = addresses.filter((a) => allowed || allow.includes(a.address) || !isPrivateAddress(a.address));
      if (usable.length === 0) return callback(new PrivateAddressError(`${host} resolves to ${addresses.map((a) => a.address).join(', ')}`), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
      callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}

/** Why a URL is not fetched at all (not a URL, not http or https), or undefined. */
export function urlRefusal(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `"${raw}" is not a URL; give a full http:// or https:// address.`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `WebFetch reads http and https pages only; ${url.protocol}// is refused (use FileRead for local files).`;
  return undefined;
}

const bare = (host: string): string => host.replace(/^\[|\]$/g, '');

/** Fetches `raw` within the limits; see the module comment. */
export async function fetchPage(raw: string, limits: FetchLimits, signal: AbortSignal): Promise<FetchedPage> {
  const refused = urlRefusal(raw);
  if (refused) return { ok: false, why: refused };
  let url = new URL(raw);
  const host = url.hostname;
  const deadline = Date.now() + limits.timeoutMs;
  for (let hops = 0; ; hops++) {
    const literal = bare(url.hostname);
    if (isIP(literal) && isPrivateAddress(literal) && !limits.allowPrivate.includes(literal)) return { ok: false, why: privateRefusal(url.hostname) };
    const res = await get(url, limits, deadline, signal);
    if ('why' in res) return res;
    const location = res.headers.location;
    if (res.statusCode !== undefined && res.statusCode >= 300 && res.statusCode < 400 && location) {
      res.resume();
      const next = new URL(location, url);
      if (next.hostname !== host || (next.protocol !== 'http:' && next.protocol !== 'https:'))
        return {
          ok: false,
          redirect: next.href,
          why: `${url.href} redirects (${res.statusCode}) to another host: ${next.href}. It was not followed; call WebFetch again with that URL if it is what you want.`,
        };
      if (hops >= MAX_REDIRECTS) return { ok: false, why: `${raw} redirected more than ${MAX_REDIRECTS} times; stopped at ${next.href}.` };
      url = next;
      continue;
    }
    return await readBody(res, url, limits, deadline, signal);
  }
}

const privateRefusal = (host: string): string =>
  `${host} is a private or loopback address; WebFetch does not reach the local network unless the host is listed in web.allowPrivate in .agentrc.`;

function get(url: URL, limits: FetchLimits, deadline: number, signal: AbortSignal): Promise<IncomingMessage | { ok: false; why: string }> {
  return new Promise((resolve) => {
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(url, {
      method: 'GET',
      headers: { 'user-agent': 'agent-webfetch/1', accept: 'text/html,application/xhtml+xml,text/plain,text/markdown,application/json;q=0.9,*/*;q=0.5' },
      lookup: guardedLookup(bare(url.hostname), limits.allowPrivate),
      signal,
      timeout: Math.max(1, deadline - Date.now()),
    });
    req.on('response', resolve);
    req.on('timeout', () => {
      req.destroy();
      resolve({ ok: false, why: `${url.href} did not answer within ${Math.round(limits.timeoutMs / 1000)} s.` });
    });
    req.on('error', (e) => {
      if (e instanceof PrivateAddressError) resolve({ ok: false, why: `${privateRefusal(url.hostname)} (${e.message})` });
      else if (signal.aborted) resolve({ ok: false, why: 'Interrupted before the page came.' });
      else resolve({ ok: false, why: `${url.href} could not be fetched: ${e.message}.` });
    });
    req.end();
  });
}

function readBody(res: IncomingMessage, url: URL, limits: FetchLimits, deadline: number, signal: AbortSignal): Promise<FetchedPage> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let bytes = 0;
    let truncated = false;
    const timer = setTimeout(() => finish(true), Math.max(1, deadline - Date.now()));
    const finish = (late = false): void => {
      clearTimeout(timer);
      if (late || truncated) res.destroy();
      if (signal.aborted) return resolve({ ok: false, why: 'Interrupted while the page was coming.' });
      resolve({
        ok: true,
        url: url.href,
        status: res.statusCode ?? 0,
        contentType: String(res.headers['content-type'] ?? ''),
        body: Buffer.concat(parts),
        truncated: truncated || late,
      });
    };
    res.on('data', (chunk: Buffer) => {
      if (truncated) return;
      const room = limits.maxBytes - bytes;
      parts.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      bytes += Math.min(chunk.length, room);
      if (bytes >= limits.maxBytes) {
        truncated = true;
        finish();
      }
    });
    res.on('end', () => {
      if (!truncated) finish();
    });
    res.on('error', () => {
      if (!truncated) finish(true);
    });
  });
}
