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
  await new Promise<void>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`server-everything (${mode}) did not start`)), 15_000);
    const on = (d: Buffer): void => {
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
