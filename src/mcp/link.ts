// One MCP server over time: its state as plain data (connecting → connected; failed with the
// reason when a first connection does not come up; reconnecting while a server that was up is
// tried again, reconnect.ts saying when), the connection and tools it has now, and the moves
// between those states. Every move ends in a state, never in a throw: a server that cannot start
// or went away is something the person reads about, and the session goes on. The manager
// (manager.ts) owns the links, their approval and what their tools become for the model.

import type { AnyTool } from '../tools/types.js';
import { serverEnv, type McpServerEntry, type SecretTest } from './config.js';
import type { ConnectionEvents, McpConnection, McpTool } from './connection.js';
import { reconnectDelay } from './reconnect.js';

/** `reconnecting`: it was up and went away; its tools stay listed while it is tried again. */
export type McpState = 'connecting' | 'connected' | 'reconnecting' | 'failed' | 'needs-approval' | 'declined' | 'disabled';

export type ConnectFn = (
  entry: McpServerEntry,
  env: Record<string, string> | undefined,
  events: ConnectionEvents,
  signal: AbortSignal,
) => Promise<McpConnection>;

/** What a link needs from its manager. */
export interface LinkHost {
  readonly closed: boolean;
  connect: ConnectFn;
  env: NodeJS.ProcessEnv;
  isSecret: SecretTest;
  /** Awaited before a connection's tools are adopted (loads the tokenizer). */
  prepareCount?: () => Promise<void>;
  /** The server's tool list, on connecting and when it changes. */
  adopt(link: ServerLink, tools: readonly McpTool[]): void;
  /** The state changed (the footer's word on it). */
  notify(): void;
  /** The tools the model gets changed (a server failed). */
  changed(): void;
  notice(level: 'info' | 'warning' | 'error', text: string): void;
}

interface Retry {
  attempt: number;
  since: number;
  why: string;
  timer?: NodeJS.Timeout;
}

export class ServerLink {
  state: McpState = 'connecting';
  conn: McpConnection | undefined;
  tools: AnyTool[] = [];
  tokens = 0;
  warnings: string[] = [];
  error: string | undefined;
  /** The attempt under way. */
  connecting: Promise<void> | undefined;
  /** Its instructions as last connected: kept while it reconnects, so the system prompt stays as it was. */
  instructions: string | undefined;
  /** The tool list as last adopted (JSON): a reconnect that lists the same tools changes nothing the model sees. */
  listed: string | undefined;
  /** Set while a server that was up is being reconnected. */
  retry: Retry | undefined;
  private abort: AbortController | undefined;

  constructor(
    readonly entry: McpServerEntry,
    private readonly host: LinkHost,
  ) {}

  get name(): string {
    return this.entry.name;
  }

  /** A first connection (start, approval, enable): `connecting`, then `connected` or `failed` with the reason. */
  connect(): void {
    if (this.host.closed) return;
    this.begin();
    void this.attempt();
  }

  /** Closes the connection and connects again; a server that had tools keeps them and is retried by itself if this fails. */
  async reconnect(why: string): Promise<void> {
    await this.drop();
    if (this.host.closed) return;
    if (this.tools.length > 0) this.startRetry(why);
    else this.begin();
    await this.attempt();
  }

  /** Ends the connection (and an attempt or retry under way); the tools stay as they are. */
  async drop(): Promise<void> {
    this.stopRetry();
    this.abort?.abort();
    const conn = this.conn;
    this.conn = undefined;
    // a server still connecting is closed by the abort: wait for that too (bounded)
    const starting = this.connecting;
    await Promise.all([conn?.close(), starting ? Promise.race([starting, new Promise((r) => setTimeout(r, 2_000).unref())]) : undefined]);
  }

  /** The live connection, after waiting (at most `waitMs`) for an attempt under way, or one started now. */
  async connection(signal: AbortSignal, waitMs: number): Promise<McpConnection | undefined> {
    if (!this.conn && !this.connecting) {
      if (this.retry) this.retryNow();
      else if (this.state === 'failed' && !this.entry.error) {
        this.host.notice('info', `Restarting MCP server "${this.name}"…`);
        this.connect();
      }
    }
    if (this.connecting) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.connecting, abortPromise(signal), new Promise((r) => (timer = setTimeout(r, waitMs)))]);
      clearTimeout(timer);
    }
    return this.conn;
  }

  private begin(): void {
    this.stopRetry();
    this.state = 'connecting';
    this.error = undefined;
    this.host.notify();
  }

  /** One try at a connection; its outcome is the new state. */
  private attempt(): Promise<void> {
    const abort = new AbortController();
    this.abort = abort;
    const run: Promise<void> = this.tryConnect(abort.signal).finally(() => {
      if (this.connecting === run) this.connecting = undefined;
    });
    this.connecting = run;
    return run;
  }

  private async tryConnect(signal: AbortSignal): Promise<void> {
    let conn: McpConnection | undefined;
    try {
      const launch = this.entry.launch!;
      const env = launch.type === 'stdio' ? serverEnv(launch.env, this.host.env, this.host.isSecret) : undefined;
      // the events may come before `conn` is assigned (a server that exits while it starts):
      // they concern this connection only once it is the link's
      conn = await this.host.connect(
        this.entry,
        env,
        {
          toolsChanged: (tools) => {
            if (conn && this.conn === conn) this.host.adopt(this, tools);
          },
          lost: (why) => {
            if (conn && this.conn === conn) this.lost(why);
          },
        },
        signal,
      );
      if (!signal.aborted && !this.host.closed) await this.host.prepareCount?.();
      if (signal.aborted || this.host.closed) return void (await conn.close());
      // it may have gone away while the tokenizer loaded
      if (conn.gone !== undefined) throw new Error(conn.gone);
      const back = this.retry;
      this.conn = conn;
      this.instructions = conn.instructions;
      this.state = 'connected';
      this.stopRetry();
      this.host.adopt(this, conn.tools);
      if (back)
        this.host.notice(
          'info',
          `MCP server "${this.name}" is back (reconnected after ${fmtSeconds(Date.now() - back.since)}${conn.sessionId ? ', in a new session' : ''}).`,
        );
      this.host.notify();
    } catch (e) {
      if (conn && this.conn !== conn) void conn.close();
      if (signal.aborted || this.host.closed) return;
      const why = (e as Error).message ?? String(e);
      if (this.retry) {
        this.retry.why = why;
        this.retry.attempt++;
        this.scheduleRetry();
        this.host.notify();
        return;
      }
      this.state = 'failed';
      this.error = why;
      this.host.notice(
        'error',
        `MCP server "${this.name}" could not start: ${why}. The session goes on without it (/mcp reconnect ${this.name} to try again).`,
      );
      this.host.changed();
    }
  }

  /** The server went away: its tools stay listed, and it is reconnected by itself (reconnect.ts). */
  private lost(why: string): void {
    const conn = this.conn;
    this.conn = undefined;
    void conn?.close();
    if (this.host.closed) return;
    this.host.notice('warning', `MCP server "${this.name}" stopped (${why}); reconnecting…`);
    this.startRetry(why);
    this.scheduleRetry();
  }

  private startRetry(why: string): void {
    this.stopRetry();
    this.state = 'reconnecting';
    this.error = undefined;
    this.retry = { attempt: 0, since: Date.now(), why };
    this.host.notify();
  }

  private scheduleRetry(): void {
    const r = this.retry;
    if (!r || this.host.closed) return;
    clearTimeout(r.timer);
    r.timer = setTimeout(
      () => {
        r.timer = undefined;
        if (this.retry === r && !this.connecting && !this.host.closed) void this.attempt();
      },
      reconnectDelay(r.attempt, Date.now() - r.since),
    );
    // a pending retry never keeps the program alive (print mode exits when its turn is done)
    r.timer.unref();
  }

  /** A call to a server being reconnected: the next attempt starts now rather than when its timer fires. */
  private retryNow(): void {
    if (!this.retry || this.connecting || this.host.closed) return;
    clearTimeout(this.retry.timer);
    void this.attempt();
  }

  private stopRetry(): void {
    if (this.retry) clearTimeout(this.retry.timer);
    this.retry = undefined;
  }
}

export const fmtSeconds = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`);

function abortPromise(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
