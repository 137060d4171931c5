import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

// The reference server @modelcontextprotocol/server-everything, in one of its HTTP modes, bound
// to the loopback interface (loopback.mjs) on a free port, or on a given one (a restart at the
// same address: the new process knows none of the old sessions).

export const EVERYTHING = resolve(__dirname, '..', '..', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const LOOPBACK = resolve(__dirname, 'loopback.mjs');

export interface HttpServer {
  url: string;
  port: number;
  /** SIGKILL; resolves once the process is gone (its port free again). */
  stop(): Promise<void>;
}

/** A port nothing listens on (it was free a moment ago). */
export function freePort(): Promise<number> {
  return new Promise<number>((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => res(p));
    });
  });
}

export async function startEverything(mode: 'streamableHttp' | 'sse', at?: number): Promise<HttpServer> {
  const port = at ?? (await freePort());
  const child = spawn(process.execPath, ['--import', LOOPBACK, EVERYTHING, mode], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The bound is this helper's, not the product's (mcp.startupMs bounds how long the agent waits for
  // a server, and these servers are the test's): a start costs ~0.7 CPU-s and took over 15 s of wall
  // time under a load of 20-30, so the bound is far above that; a server that crashes at start
  // fails at once (its exit), and what it printed comes with a timeout.
  let printed = '';
  await new Promise<void>((res, rej) => {
    const timer = setTimeout(
      () => rej(new Error(`server-everything (${mode}) did not say it was listening within 45 s; it printed: ${JSON.stringify(printed)}`)),
      45_000,
    );
    const on = (d: Buffer): void => {
      printed += d.toString();
      if (/listening|running|port/i.test(d.toString())) {
        clearTimeout(timer);
        res();
      }
    };
    child.stdout!.on('data', on);
    child.stderr!.on('data', on);
    child.on('exit', (code) => rej(new Error(`server-everything (${mode}) exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/${mode === 'sse' ? 'sse' : 'mcp'}`,
    port,
    stop: () => {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGKILL');
      return gone;
    },
  };
}
