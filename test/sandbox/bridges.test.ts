// The session's proxy bridges (src/sandbox/bridges.ts) on their own: a real user and network
// namespace (unshare) with real socat listening in it, no sandbox library. The socket paths are
// never connected to (socat connects only when a client arrives), so any path will do.
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, readlinkSync, writeFileSync } from 'node:fs';
import { type AddressInfo, connect, createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionBridges } from '../../src/sandbox/bridges.js';
import { tempDir } from '../tempDirs.js';

const sockets = tempDir('bridges-sockets-');
const http = join(sockets, 'http.sock');
const socks = join(sockets, "it's socks.sock");
const path = process.env['PATH'];
afterEach(() => {
  process.env['PATH'] = path;
});

/** A PATH whose `unshare` is this script. */
function fakeUnshare(script: string): void {
  const bin = tempDir('fake-unshare-');
  writeFileSync(join(bin, 'unshare'), `#!/bin/sh\n${script}\n`);
  chmodSync(join(bin, 'unshare'), 0o755);
  process.env['PATH'] = `${bin}:${path}`;
}

async function started(onExit: () => void = () => undefined): Promise<SessionBridges> {
  const b = await SessionBridges.start(http, socks, onExit);
  if (typeof b === 'string') throw new Error(`the bridges did not start here: ${b}`);
  return b;
}

const trap = `trap "rc=$?; kill %1 %2 2>/dev/null; exit $rc" EXIT\n`;
const own = (port: number, socket: string): string => `socat TCP-LISTEN:${port},fork,reuseaddr UNIX-CONNECT:${socket} >/dev/null 2>&1 &\n`;
/** A wrap's line of the shape the library 0.0.78 makes on Linux (its own bridges for the command). */
const line = `bwrap --new-session --unshare-net --die-with-parent -- /bin/bash -c '${trap}${own(3128, http)}${own(1080, socks)}eval "$X"'`;

const bridgesOf = (socket: string): number | null => spawnSync('pgrep', ['-f', `UNIX-CONNECT:${socket}`]).status;

/** Until `done` holds; `never` thrown after 5 s (a state that does not come). */
async function until(done: () => boolean, never: string): Promise<void> {
  for (const end = Date.now() + 5000; !done(); await new Promise((r) => setTimeout(r, 5))) if (Date.now() > end) throw new Error(never);
}

describe('the session bridges (real unshare and socat)', () => {
  it('listen in a namespace of their own, and a wrap of the shape it knows joins it: its --unshare-net, own bridges and their trap taken out', async () => {
    const b = await started();
    expect(b.alive).toBe(true);
    const joined = b.join(['/bin/bash', '-c', line]);
    expect(joined?.slice(0, 4)).toEqual([
      'nsenter',
      expect.stringMatching(/^--user=\/proc\/\d+\/ns\/user$/),
      expect.stringMatching(/^--net=\/proc\/\d+\/ns\/net$/),
      '--preserve-credentials',
    ]);
    expect(joined?.slice(4)).toEqual(['/bin/bash', '-c', `bwrap --new-session --die-with-parent -- /bin/bash -c 'eval "$X"'`]);
    // the namespace it joins is not this process's
    const net = joined![2]!.slice('--net='.length);
    expect(readlinkSync(net)).not.toBe(readlinkSync('/proc/self/ns/net'));
    // any other shape: undefined (used as it is)
    const other = [
      ['/bin/bash', '-c', line, 'extra'],
      ['/bin/bash', '-x', line],
      ['/bin/bash', '-c', line.replace(' --unshare-net', '')],
      ['/bin/bash', '-c', line.replace(own(1080, socks), '')],
      ['/bin/bash', '-c', line.replace(own(3128, http), own(3128, '/elsewhere.sock'))],
      ['/bin/bash', '-c', line.replace(trap, '')],
      ['/bin/bash', '-c', line.replace(trap, trap + trap)],
      ['/bin/bash', '-c', line.replace(own(3128, http), own(3128, http) + own(3128, http))],
    ];
    for (const argv of other) expect(b.join(argv), argv[2]).toBeUndefined();
    await b.stop();
  });

  it('stopped, the holder and its bridges are gone when stop returns; stopping again returns at once', async () => {
    let exits = 0;
    const b = await started(() => exits++);
    expect(bridgesOf(http)).toBe(0);
    await b.stop();
    expect(b.alive).toBe(false);
    expect(bridgesOf(http)).toBe(1);
    await b.stop();
    await until(() => exits > 0, 'onExit was never called');
    expect(exits).toBe(1);
  });

  it('a holder killed from outside: onExit is told, and its bridges end with it (its whole group)', async () => {
    let exits = 0;
    const b = await started(() => exits++);
    // the holder: the process whose namespace a joined wrap enters
    const pid = Number(/--net=\/proc\/(\d+)\//.exec(b.join(['/bin/bash', '-c', line])?.join(' ') ?? '')?.[1]);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGKILL');
    await until(() => exits > 0, 'onExit was never called');
    expect(b.alive).toBe(false);
    await until(() => bridgesOf(http) === 1, 'the bridges outlived their holder');
  });

  it('a holder that ends before they listen: why, with what it said (trimmed) and its exit code', async () => {
    // what it says arrives before it ends
    fakeUnshare('echo "unshare: write failed /proc/self/uid_map: Operation not permitted" >&2; sleep 0.3; exit 1');
    let exits = 0;
    expect(await SessionBridges.start(http, socks, () => exits++)).toBe(
      "the bridges' holder ended (exit code 1: unshare: write failed /proc/self/uid_map: Operation not permitted)",
    );
    expect(exits).toBe(1);
    fakeUnshare('exit 2');
    expect(await SessionBridges.start(http, socks, () => undefined)).toBe("the bridges' holder ended (exit code 2)");
  });

  it("waits for both ports listening, not one, nor a connection's port: a holder in this namespace where 3128 listens and 1080 only connects is given up", async () => {
    // the holder's own namespace is this one (a fake unshare): what listens here is what it reads
    fakeUnshare('read _');
    const server = createServer().listen(3128, '127.0.0.1');
    const other = createServer().listen(0, '127.0.0.1');
    await Promise.all([once(server, 'listening'), once(other, 'listening')]);
    const client = connect({ port: (other.address() as AddressInfo).port, host: '127.0.0.1', localPort: 1080 });
    try {
      await once(client, 'connect');
      // mutations: `ports.has('0C38') || ports.has('0438')`; `state === '0A' || local` (the connected 1080 counted as listening)
      expect(await SessionBridges.start(http, socks, () => undefined, 300)).toBe('the bridges did not listen within 300 ms');
    } finally {
      client.destroy();
      server.close();
      other.close();
    }
  });

  it('no unshare: the error; bridges that never listen: given up after waitMs, the holder killed', async () => {
    process.env['PATH'] = tempDir('empty-path-');
    expect(await SessionBridges.start(http, socks, () => undefined)).toBe('spawn unshare ENOENT');
    fakeUnshare('read _');
    let exits = 0;
    expect(await SessionBridges.start(http, socks, () => exits++, 50)).toBe('the bridges did not listen within 50 ms');
    await until(() => exits > 0, 'the holder was never killed');
  });
});
