// One live connection to one MCP server, over the official SDK's client (loaded on demand, so a
// session without servers never pays for it; with stdioTransport.ts the only files that import
// it). It connects, lists every tool (all pages, again on tools/list_changed), calls tools with a
// timeout and the caller's abort signal, notices a server that went away, and closes without
// lingering (a stdio server's whole process group ends, stdioTransport.ts).
// A server that went away: a stdio server's process ended; an HTTP server stopped answering (its
// event stream broke and a ping does not get through) or forgot the session (a restarted server
// answers 404, or 400 "No valid session ID"). `lost` says so once, and only for a connection
// that was up: a server that fails while connecting makes connect() throw instead.

import {
  Client,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type Progress,
  type Tool as SdkTool,
  type Transport,
} from '@modelcontextprotocol/client';
import * as z from 'zod/mini';
import { debug } from '../log.js';
import type { McpLaunch } from './config.js';
import { McpUnreachedError } from './reconnect.js';
import { GroupStdioTransport } from './stdioTransport.js';

export type McpTool = SdkTool;
export type McpCallResult = CallToolResult;

export interface ConnectionEvents {
  /** The server's tool list changed (after tools/list_changed, every page fetched). */
  toolsChanged: (tools: McpTool[]) => void;
  /** The connection, once up, ended without close() being called (see the header); said once. */
  lost: (why: string) => void;
}

const CLIENT_INFO = { name: 'agent', version: '0.1.0' };
/** A server whose cursor never ends is cut off here. */
const MAX_PAGES = 100;
const LenientToolList = z.object({ tools: z.array(z.looseObject({ name: z.string() })), nextCursor: z.optional(z.string()) });
/** How long a ping may take when an HTTP server's event stream broke, before it counts as gone. */
const PROBE_MS = 3_000;
/** Network errors that mean the request never reached a server. */
const UNREACHED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/** Network errors of a connection that broke, perhaps after the server got the request. */
const BROKEN_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

export class McpConnection {
  private client: Client | undefined;
  private transport: Transport | undefined;
  private closing = false;
  /** Up: connect() finished; only then can the connection be lost. */
  private up = false;
  private lostWhy: string | undefined;
  private probing = false;
  tools: McpTool[] = [];
  instructions: string | undefined;

  constructor(
    private readonly launch: McpLaunch & { label?: string },
    private readonly events: ConnectionEvents,
  ) {}

  /** Why the connection ended by itself, or undefined while it is up (or was closed). */
  get gone(): string | undefined {
    return this.lostWhy;
  }

  /** The HTTP session the server gave (streamable HTTP only). */
  get sessionId(): string | undefined {
    return this.transport instanceof StreamableHTTPClientTransport ? this.transport.sessionId : undefined;
  }

  /** Connects and lists the tools; throws with a message that says what failed. */
  async connect(signal: AbortSignal): Promise<void> {
    const client = new Client(CLIENT_INFO, {
      capabilities: {},
      listChanged: {
        tools: {
          autoRefresh: false,
          onChanged: () => void this.refresh(),
        },
      },
    });
    const transport = this.transportFor(this.launch);
    transport.onclose = () => {
      if (this.client === client) this.lose(this.exitText());
    };
    // an HTTP server's broken event stream is the first sign that it went away: ask it
    if (!(transport instanceof GroupStdioTransport)) transport.onerror = () => void this.probe(client);
    this.client = client;
    this.transport = transport;
    try {
      await client.connect(transport, { signal });
      this.instructions = client.getInstructions();
      this.tools = await this.listAll(client, signal);
      this.up = true;
    } catch (e) {
      const why = this.startError(e);
      await this.close();
      throw new Error(why);
    }
  }

  private transportFor(l: McpLaunch & { label?: string }): Transport {
    if (l.type === 'stdio')
      return new GroupStdioTransport({ command: l.command, args: l.args, env: l.env, ...(l.cwd ? { cwd: l.cwd } : {}), label: l.label ?? l.command });
    const url = new URL(l.url);
    const requestInit = { headers: l.headers };
    return l.type === 'sse' ? new SSEClientTransport(url, { requestInit }) : new StreamableHTTPClientTransport(url, { requestInit });
  }

  private stderrTail(): string[] {
    return this.transport instanceof GroupStdioTransport ? this.transport.stderrTail : [];
  }

  /** Why a connection did not come up, in the person's terms: what the process or the URL did. */
  private startError(e: unknown): string {
    const t = this.transport;
    const l = this.launch;
    if (t instanceof GroupStdioTransport) {
      const said = stderrSummary(this.stderrTail());
      const what = t.ended ? `the process ${t.ended} before it answered` : errText(e);
      return said ? `${what}; its stderr said: ${said}` : what;
    }
    if (l.type === 'stdio') return errText(e);
    if (e instanceof SdkHttpError) {
      const body = typeof e.data?.text === 'string' ? brief(e.data.text) : '';
      return `${l.url} answered HTTP ${e.status}${e.statusText ? ` ${e.statusText}` : ''}${body ? ` (${body})` : ''}`;
    }
    if (unreached(e)) return `nothing answers at ${l.url} (${brief(errText(e))})`;
    return `${l.url}: ${brief(errText(e))}`;
  }

  /** Says `lost` once, for a connection that was up and is not being closed. */
  private lose(why: string): void {
    if (!this.up || this.closing || this.lostWhy !== undefined) return;
    this.lostWhy = why;
    try {
      this.events.lost(why);
    } catch (e) {
      // a listener's bug must not take the program down from inside the SDK's event handler
      debug('mcp lost handler failed', { error: errText(e) });
    }
  }

  /** A ping after a transport error: a server that is not reached or forgot the session is lost. */
  private async probe(client: Client): Promise<void> {
    if (!this.up || this.probing || this.closing || this.client !== client) return;
    this.probing = true;
    try {
      await client.ping({ timeout: PROBE_MS });
    } catch (e) {
      if (this.client === client && (unreached(e) || hasCode(e, BROKEN_CODES) || /timed? ?out/i.test(errText(e)))) this.lose(lostText(e));
    } finally {
      this.probing = false;
    }
  }

  private async refresh(): Promise<void> {
    const client = this.client;
    if (!client) return;
    try {
      this.tools = await this.listAll(client);
      this.events.toolsChanged(this.tools);
    } catch {
      // the next list_changed or a reconnect tries again
    }
  }

  /**
   * Every page of tools/list. Read leniently (each tool only needs a name): the SDK's own
   * listTools refuses the whole list when one tool's schema is wrong, and one bad tool must not
   * take a server's other tools away (tools.ts skips it with a warning).
   */
  private async listAll(client: Client, signal?: AbortSignal): Promise<McpTool[]> {
    const out: McpTool[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      const page = await client.request({ method: 'tools/list', ...(cursor ? { params: { cursor } } : {}) }, LenientToolList, signal ? { signal } : {});
      for (const t of page.tools) out.push(t as unknown as McpTool);
      cursor = page.nextCursor;
      if (!cursor) return out;
    }
    throw new Error(`tools/list did not end after ${MAX_PAGES} pages`);
  }

  /**
   * Calls a tool; throws on a protocol error, a timeout (message says so) or an abort, and
   * McpUnreachedError (the connection then lost) when the request did not reach the server.
   */
  async call(name: string, args: Record<string, unknown>, timeoutMs: number, signal: AbortSignal, onProgress?: (text: string) => void): Promise<McpCallResult> {
    const client = this.client;
    if (!client || this.lostWhy !== undefined) throw new McpUnreachedError(this.lostWhy ?? 'not connected');
    const toolDefinition = this.tools.find((t) => t.name === name);
    // with a listener the call carries a progress token: the server's notifications/progress come
    // back as one line for the live view, rewritten in place (a carriage return, as a terminal's
    // progress line), and each one restarts the timeout (the server is working) up to ten timeouts
    let shown = false;
    const progress = onProgress
      ? {
          onprogress: (p: Progress) => {
            onProgress(`${shown ? '\r' : ''}${progressLine(p)}`);
            shown = true;
          },
          resetTimeoutOnProgress: true,
          maxTotalTimeout: timeoutMs * 10,
        }
      : {};
    try {
      return await client.callTool({ name, arguments: args }, { timeout: timeoutMs, signal, ...progress, ...(toolDefinition ? { toolDefinition } : {}) });
    } catch (e) {
      if (signal.aborted) throw e;
      if (unreached(e)) {
        const why = lostText(e);
        this.lose(why);
        throw new McpUnreachedError(why);
      }
      // the server may have got it: not sent again, but the connection is over
      if (hasCode(e, BROKEN_CODES)) this.lose(lostText(e));
      throw e;
    }
  }

  private exitText(): string {
    const t = this.transport;
    const what = t instanceof GroupStdioTransport && t.ended ? `the process ${t.ended}` : 'the connection closed';
    // killed by a signal, its start-up chatter says nothing about why it went; only an error it wrote does
    const said = stderrSummary(this.stderrTail(), !(t instanceof GroupStdioTransport && t.ended?.startsWith('was killed')));
    return said ? `${what}; its stderr said: ${said}` : what;
  }

  private closed: Promise<void> | undefined;

  /** Ends the connection; a stdio server that does not exit is killed (within about a second). Every caller waits for the same end. */
  close(): Promise<void> {
    this.closed ??= this.end();
    return this.closed;
  }

  private async end(): Promise<void> {
    this.closing = true;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    if (!transport) return;
    // the stdio transport bounds its own close (about a second); an HTTP one only aborts its requests
    await Promise.race([transport.close().catch(() => undefined), sleep(1_500)]);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());

/** What a server's stderr says about a failure: its first line that reads like an error (Node's stack dumps end in noise), else (`lastLines`) its last lines. */
export function stderrSummary(lines: readonly string[], lastLines = true): string {
  const telling = lines.find((l) => /error|cannot|can't|not found|no such|denied|refused|invalid|missing|failed|ENOENT|EACCES/i.test(l));
  return telling ?? (lastLines ? lines.slice(-3).join(' | ') : '');
}

/** The request did not reach a server that handles it: the network refused it, or the server no longer knows the session. */
export function unreached(e: unknown): boolean {
  if (e instanceof SdkHttpError) {
    const body = typeof e.data?.text === 'string' ? e.data.text : e.message;
    return e.status === 404 || (e.status === 400 && /session/i.test(body));
  }
  return hasCode(e, UNREACHED_CODES);
}

/** An error, or one of its causes, carries one of these codes. */
function hasCode(e: unknown, codes: ReadonlySet<string>): boolean {
  for (let c: unknown = e, depth = 0; c instanceof Error && depth < 5; c = (c as { cause?: unknown }).cause, depth++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string' && codes.has(code)) return true;
  }
  return false;
}

function lostText(e: unknown): string {
  if (e instanceof SdkHttpError) return `the server no longer knows this session (HTTP ${e.status})`;
  return `the server is not reached (${brief(errText(e))})`;
}

/** Most characters of what a web server said that a notice repeats. */
const BRIEF_CHARS = 200;

/**
 * What a web server said, in one line: an HTML page (a proxy's or a framework's error page) by
 * its title, or its text without the tags; cut to BRIEF_CHARS. Never the page over many lines.
 */
export function brief(text: string): string {
  const html = /<(?:!doctype|html|head|body|title|div|p|h1|pre)\b/i.test(text);
  const title = html ? /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1] : undefined;
  const plain = (title ?? (html ? text.replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ') : text))
    .replace(/&nbsp;/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return plain.length > BRIEF_CHARS ? `${plain.slice(0, BRIEF_CHARS - 1)}…` : plain;
}

export function errText(e: unknown): string {
  if (e instanceof Error) {
    const cause = (e as { cause?: unknown }).cause;
    return cause instanceof Error && !e.message.includes(cause.message) ? `${e.message} (${cause.message})` : e.message;
  }
  return String(e);
}

/** A progress notification as one line: "progress 2/5: Indexing" (the total and message when the server gives them). */
function progressLine(p: Progress): string {
  const done = p.total !== undefined ? `${p.progress}/${p.total}` : `${p.progress}`;
  return `progress ${done}${p.message ? `: ${p.message}` : ''}`;
}
