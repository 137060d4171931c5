// One live connection to one MCP server, over the official SDK's client (the only file that
// imports it; loaded on demand, so a session without servers never pays for it). It connects,
// lists every tool (all pages, again on tools/list_changed), calls tools with a timeout and
// the caller's abort signal, notices a server that died, and closes without lingering: a stdio
// server gets its input closed, then SIGTERM after 300 ms, SIGKILL after 1 s (the SDK's own
// close waits 2 s + 2 s, long enough to leave a stuck server behind when the program exits).

import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type Tool as SdkTool,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import * as z from 'zod/mini';
import type { McpLaunch } from './config.js';

export type McpTool = SdkTool;
export type McpCallResult = CallToolResult;

export interface ConnectionEvents {
  /** The server's tool list changed (after tools/list_changed, every page fetched). */
  toolsChanged: (tools: McpTool[]) => void;
  /** The connection ended without close() being called (a stdio server exited, an HTTP session ended). */
  lost: (why: string) => void;
}

const CLIENT_INFO = { name: 'agent', version: '0.1.0' };
/** A server whose cursor never ends is cut off here. */
const MAX_PAGES = 100;
const LenientToolList = z.object({ tools: z.array(z.looseObject({ name: z.string() })), nextCursor: z.optional(z.string()) });
/** Lines of a stdio server's stderr kept to explain a failure. */
const STDERR_LINES = 20;

export class McpConnection {
  private client: Client | undefined;
  private transport: Transport | undefined;
  private pid: number | undefined;
  private closing = false;
  private readonly stderrTail: string[] = [];
  tools: McpTool[] = [];
  instructions: string | undefined;

  constructor(
    private readonly launch: McpLaunch,
    private readonly events: ConnectionEvents,
  ) {}

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
      if (!this.closing && this.client === client) this.events.lost(this.exitText());
    };
    this.client = client;
    this.transport = transport;
    try {
      await client.connect(transport, { signal });
      if (transport instanceof StdioClientTransport) this.pid = transport.pid ?? undefined;
      this.instructions = client.getInstructions();
      this.tools = await this.listAll(client, signal);
    } catch (e) {
      const why = this.stderrTail.length > 0 ? `${errText(e)}; its stderr said: ${this.stderrTail.slice(-3).join(' | ')}` : errText(e);
      await this.close();
      throw new Error(why);
    }
  }

  private transportFor(l: McpLaunch): Transport {
    if (l.type === 'stdio') {
      const t = new StdioClientTransport({ command: l.command, args: l.args, env: l.env, ...(l.cwd ? { cwd: l.cwd } : {}), stderr: 'pipe' });
      t.stderr?.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) this.stderrTail.push(line.trim().slice(0, 300));
        if (this.stderrTail.length > STDERR_LINES) this.stderrTail.splice(0, this.stderrTail.length - STDERR_LINES);
      });
      return t;
    }
    const url = new URL(l.url);
    const requestInit = { headers: l.headers };
    return l.type === 'sse' ? new SSEClientTransport(url, { requestInit }) : new StreamableHTTPClientTransport(url, { requestInit });
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

  /** Calls a tool; throws on a protocol error, a timeout (message says so) or an abort. */
  async call(name: string, args: Record<string, unknown>, timeoutMs: number, signal: AbortSignal): Promise<McpCallResult> {
    const client = this.client;
    if (!client) throw new Error('not connected');
    const toolDefinition = this.tools.find((t) => t.name === name);
    return client.callTool({ name, arguments: args }, { timeout: timeoutMs, signal, ...(toolDefinition ? { toolDefinition } : {}) });
  }

  private exitText(): string {
    const tail = this.stderrTail.slice(-3).join(' | ');
    return tail ? `the connection closed; its stderr said: ${tail}` : 'the connection closed';
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
    // a server still starting has a pid too (the handshake may be what it is stuck in)
    const pid = this.pid ?? (transport instanceof StdioClientTransport ? (transport.pid ?? undefined) : undefined);
    this.client = undefined;
    this.transport = undefined;
    if (!transport) return;
    const closed = transport.close().catch(() => undefined);
    if (pid === undefined) {
      await Promise.race([closed, sleep(500)]);
      return;
    }
    await Promise.race([closed, sleep(300)]);
    if (alive(pid)) signalPid(pid, 'SIGTERM');
    for (let waited = 0; waited < 700 && alive(pid); waited += 50) await sleep(50);
    if (alive(pid)) signalPid(pid, 'SIGKILL');
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalPid(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

export function errText(e: unknown): string {
  if (e instanceof Error) {
    const cause = (e as { cause?: unknown }).cause;
    return cause instanceof Error && !e.message.includes(cause.message) ? `${e.message} (${cause.message})` : e.message;
  }
  return String(e);
}
