// The proxy bridges of a session, started once (Linux). The library runs each command in a
// network namespace of its own (bubblewrap's --unshare-net) and starts two socat bridges inside
// it for that command alone: 3128 and 1080 in the sandbox, forwarded to its proxy's Unix sockets.
// Starting them, and waiting until they listen (a command that connected at once could beat
// them), was most of what the sandbox added to a command. Here one network namespace is made for
// the session (a user namespace of our own that owns it, so no privilege is needed; its
// loopback up), the two bridges listen in it from the start, and each command's bubblewrap joins
// it (nsenter) instead of making one: the same wrap without --unshare-net and without its own
// bridges. The namespace has no interface but loopback, so a command still reaches nothing but
// the proxy, which filters by domain as before. Its commands share that loopback (a server one
// starts in the background is reachable from the next).
// Where it cannot start (no `unshare`, `nsenter` or `ip`, user namespaces refused), the runtime
// keeps the library's per-command bridges.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The library's lines that start a command's own bridges, as they appear in its wrap (no quoting: the socket paths are plain). */
const bridgeLine = (port: number, socket: string): string => `socat TCP-LISTEN:${port},fork,reuseaddr UNIX-CONNECT:${socket} >/dev/null 2>&1 &\n`;
/** The library's line that stops them when the command ends (quoted twice over in the wrap); without it the shell execs the command's seccomp helper instead of waiting for it. */
const BRIDGES_TRAP = /trap \S*rc=\$\?; kill %1 %2 2>\/dev\/null; exit \$rc\S* EXIT\n/g;

/** Whether both ports listen in the namespace of `pid` (its /proc/net/tcp: state 0A, ports 0C38 and 0438). */
function listening(pid: number): boolean {
  const ports = new Set<string>();
  for (const f of ['tcp', 'tcp6']) {
    let text = '';
    try {
      text = readFileSync(`/proc/${pid}/net/${f}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state === '0A' && local) ports.add(local.slice(local.lastIndexOf(':') + 1));
    }
  }
  return ports.has('0C38') && ports.has('0438');
}

export class SessionBridges {
  private constructor(
    private readonly holder: ChildProcess,
    private readonly pid: number,
    private readonly http: string,
    private readonly socks: string,
  ) {}

  /**
   * The namespace made and both bridges listening (at most `waitMs`), or why not. `onExit`: the
   * holder ended (killed, or its bridges did): the runtime goes back to per-command bridges.
   */
  static async start(http: string, socks: string, onExit: () => void, waitMs = 5000): Promise<SessionBridges | string> {
    const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
    // the bridges end when this program's end closes the holder's input
    const script =
      `ip link set lo up || exit 1; socat TCP-LISTEN:3128,fork,reuseaddr UNIX-CONNECT:${q(http)} & a=$!; ` +
      `socat TCP-LISTEN:1080,fork,reuseaddr UNIX-CONNECT:${q(socks)} & b=$!; read _; kill $a $b`;
    // a group of its own: however the holder ends, its bridges are ended with it
    const holder = spawn('unshare', ['--user', '--map-current-user', '--net', '--', '/bin/sh', '-c', script], {
      stdio: ['pipe', 'ignore', 'pipe'],
      detached: true,
    });
    let said = '';
    holder.stderr?.on('data', (d: Buffer) => (said += d.toString()));
    const ended = new Promise<string>((resolve) => {
      holder.once('error', (e) => resolve(e.message));
      holder.once('exit', (code, signal) => resolve(`the bridges' holder ended (${signal ?? `exit code ${code}`}${said.trim() ? `: ${said.trim()}` : ''})`));
    });
    let gone: string | undefined;
    void ended.then((why) => {
      gone = why;
      try {
        if (holder.pid !== undefined) process.kill(-holder.pid, 'SIGKILL');
      } catch {
        // the group is gone already
      }
      onExit();
    });
    const pid = holder.pid;
    const deadline = Date.now() + waitMs;
    // once a session: poll until both listen (a few ms after socat starts)
    while (pid !== undefined && gone === undefined && !listening(pid)) {
      if (Date.now() > deadline) {
        holder.kill('SIGKILL');
        return `the bridges did not listen within ${waitMs} ms`;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    if (pid === undefined || gone !== undefined) return gone ?? (await ended);
    return new SessionBridges(holder, pid, http, socks);
  }

  get alive(): boolean {
    return this.holder.exitCode === null && this.holder.signalCode === null;
  }

  /**
   * The library's wrap (`[shell, '-c', line]`) made to join the session's namespace: its
   * --unshare-net and its own bridges taken out, nsenter in front. Undefined when the wrap is not
   * the shape this was written for (another library version): then it is used as it is.
   */
  join(argv: readonly string[]): string[] | undefined {
    const line = argv[2];
    if (argv.length !== 3 || argv[1] !== '-c' || line === undefined) return undefined;
    const pieces = [' --unshare-net ', bridgeLine(3128, this.http), bridgeLine(1080, this.socks)];
    if (!pieces.every((p) => line.split(p).length === 2) || (line.match(BRIDGES_TRAP) ?? []).length !== 1) return undefined;
    const joined = pieces.reduce((l, p, i) => l.replace(p, i === 0 ? ' ' : ''), line).replace(BRIDGES_TRAP, '');
    const ns = `/proc/${this.pid}/ns`;
    return ['nsenter', `--user=${ns}/user`, `--net=${ns}/net`, '--preserve-credentials', argv[0]!, '-c', joined];
  }

  /** Ends the bridges (the end of the session). */
  async stop(): Promise<void> {
    if (!this.alive) return;
    const ended = new Promise((r) => this.holder.once('exit', r));
    this.holder.stdin?.end();
    await ended;
  }
}
