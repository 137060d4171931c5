import { createServer, type Socket } from 'node:net';

/** A TCP server that accepts connections and reads what comes, and never answers: the provider that never responds. */
export interface SilentServer {
  port: number;
  /** http://127.0.0.1:PORT */
  url: string;
  close(): Promise<void>;
}

export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('data', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
