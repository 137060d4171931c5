// The stdio transport of an MCP server that runs as this program's child: newline-delimited
// JSON-RPC over its stdin and stdout, as the SDK's StdioClientTransport speaks it, but with the
// server in its own process group, registered with processes/groups.ts. So the whole tree a
// server starts (`npx` → node, a wrapper script → its interpreter) ends with it, and a
// SIGTERM, SIGHUP or SIGINT to this program ends the servers too. Closing: stdin is closed
// (a server's signal to exit), then the group gets SIGTERM after 300 ms and SIGKILL after 1 s
// (the SDK's own close waits 2 s + 2 s, long enough to leave a stuck server behind).
import { spawn, type ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { killGroup, stopGroup, trackGroup } from '../processes/groups.js';

export interface StdioLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** The server's name, for the list of running children. */
  label: string;
}

/** Lines of a server's stderr kept to explain a failure. */
const STDERR_LINES = 20;
const CLOSE_TERM_AFTER_MS = 300;
const CLOSE_KILL_AFTER_MS = 700;

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer();
  /**
   * What came since the last line break, held until one comes: the SDK's ReadBuffer copies all it
   * holds at each chunk it is given, so a 10 MB message in 64 KB chunks cost it ~800 MB of copying.
   */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private untrack: () => void = () => {};
  private exited: Promise<void> = Promise.resolve();
  /** The last lines the server wrote to stderr. */
  readonly stderrTail: string[] = [];
  /** How the process ended ("exited with code 1", "was killed by SIGKILL"), once it did. */
  ended: string | undefined;

  constructor(private readonly launch: StdioLaunch) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    if (this.child) throw new Error('the server was started already');
    const { command, args, env, cwd, label } = this.launch;
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, {
        env: { ...getDefaultEnvironment(), ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
        ...(cwd ? { cwd } : {}),
        // its own process group: the whole tree can be signalled at once
        detached: true,
      });
      this.child = child;
      this.exited = new Promise((r) =>
        child.once('exit', (code, sig) => {
          this.ended = sig ? `was killed by ${sig}` : `exited with code ${code ?? '?'}`;
          r();
        }),
      );
      child.once('error', (e) => {
        this.untrack();
        reject(e);
        this.onerror?.(e);
      });
      child.once('spawn', () => {
        if (child.pid !== undefined) this.untrack = trackGroup(child.pid, 'mcp', label);
        resolve();
      });
      child.once('close', () => {
        this.untrack();
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin!.on('error', (e) => this.onerror?.(e));
      child.stdout!.on('error', (e) => this.onerror?.(e));
      child.stdout!.on('data', (chunk: Buffer) => {
        // a part of a line, under the SDK's cap: held (past the cap, ReadBuffer says so as it did)
        if (!chunk.includes(10) && this.pendingBytes + chunk.length <= STDIO_DEFAULT_MAX_BUFFER_SIZE) {
          this.pending.push(chunk);
          this.pendingBytes += chunk.length;
          return;
        }
        const held = this.pending.length > 0 ? Buffer.concat([...this.pending, chunk]) : chunk;
        this.pending = [];
        this.pendingBytes = 0;
        try {
          this.buffer.append(held);
        } catch (e) {
          // a message past the SDK's 10 MB line cap: the connection cannot go on in step
          this.onerror?.(e as Error);
          void this.close();
          return;
        }
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (e) {
            // a line that is not JSON-RPC (a server logging to stdout): reported, the rest still read
            this.onerror?.(e as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) this.stderrTail.push(line.trim().slice(0, 300));
        if (this.stderrTail.length > STDERR_LINES) this.stderrTail.splice(0, this.stderrTail.length - STDERR_LINES);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(new Error('the server is not running'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  /** Ends the server: stdin closed, then SIGTERM to its group after 300 ms, SIGKILL after another 700 ms. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const pid = child.pid;
    child.stdin?.end();
    const exited = this.exited;
    const wait = (ms: number): Promise<boolean> => Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    if (!(await wait(CLOSE_TERM_AFTER_MS)) && pid !== undefined) await stopGroup(pid, CLOSE_KILL_AFTER_MS);
    // the leader exited, but what it started may still run in its group
    else if (pid !== undefined) killGroup(pid, 'SIGKILL');
    this.untrack();
    child.stdout?.destroy();
    child.stderr?.destroy();
    this.buffer.clear();
  }
}
