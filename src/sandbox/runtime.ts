// The OS sandbox every Bash command runs in when `sandbox.enabled` is set: the well-kept library
// Claude Code uses (@anthropic-ai/sandbox-runtime, pinned at 0.0.78, the last that runs on Node
// 20.11: docs/sandbox.md) wraps each command in bubblewrap with a filtering HTTP/SOCKS proxy
// bridged in by socat on Linux, in Seatbelt on macOS. This file owns the one sandbox of the
// process: starting it (and proving it starts: a broken bubblewrap is found here, not by the first
// command), what it allows (settings.ts), wrapping a command, and reading back what it denied.
// It never decides whether a command runs: the gate does (session/toolGate.ts), from plan().
// A sandbox that cannot start says why and what to install; it never runs a command unsandboxed.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import type { SandboxSettings } from '../config/sandboxSettings.js';
import { bashAllowedByPrefixes, prefixWords } from '../tools/permissions.js';
import type { CommandSandbox, SandboxPlan } from '../tools/types.js';
import { SessionBridges } from './bridges.js';
import { deniedIn } from './denials.js';
import { COMMAND_VARIABLE, type PreparedWrap, runFromEnv, sandboxFingerprint } from './prepared.js';
import type { SandboxStatus } from './status.js';
import { NESTED_SEARCH_DEPTH, runtimeConfig, type Boundaries } from './settings.js';

type Manager = typeof import('@anthropic-ai/sandbox-runtime')['SandboxManager'];

/** A network connection the allow-list does not cover: asked in the TUI (true: allowed for the session); none in print mode, where it is refused. */
export type AskNetwork = (host: string, port: number) => Promise<boolean>;

const INSTALL: Record<string, string> = {
  linux: 'install bubblewrap and socat (Debian/Ubuntu: apt-get install bubblewrap socat; Fedora: dnf install bubblewrap socat)',
  darwin: 'macOS has Seatbelt (sandbox-exec) built in; check that /usr/bin/sandbox-exec runs',
};
const installHint = (): string => INSTALL[process.platform] ?? `the sandbox supports Linux (bubblewrap) and macOS (Seatbelt), not ${process.platform}`;

/** Runs a wrapped command to its end: its exit code and what it printed (the start-up probe). */
function runWrapped(argv: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ code: number | null; output: string; started: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', (e) => resolve({ code: null, output: e.message, started: false }));
    child.once('close', (code) => resolve({ code, output, started: true }));
  });
}

export class SandboxRuntime implements CommandSandbox {
  private manager: Manager | undefined;
  private current: SandboxStatus = { state: 'off' };
  /** Domains the person allowed in this session (asked in the TUI). */
  private readonly sessionDomains: string[] = [];
  /** Bumped whenever the library's configuration changes: a wrap prepared before is stale. */
  private generation = 0;
  /** The next command's wrap, made when the last one ended (prepared.ts). */
  private pending: Promise<PreparedWrap | undefined> | undefined;
  private preparedSeq = 0;
  /** A running command's id → the id the library files its violations under (its prepared wrap's), and how it was wrapped. */
  private readonly running = new Map<string, { wrapId: string; shell: string; cwd: string }>();
  /** The proxy bridges started once for the session (Linux, bridges.ts); none: each command starts its own. */
  private bridges: SessionBridges | undefined;

  constructor(
    readonly settings: SandboxSettings,
    private readonly where: Boundaries,
    private readonly ask?: AskNetwork,
  ) {}

  get status(): SandboxStatus {
    return this.current;
  }

  get escapable(): boolean {
    return this.settings.allowUnsandboxedCommands;
  }

  /**
   * Starts it when the settings enable it: the dependencies checked, the proxies started, then one
   * command (`true`) run inside to prove it works. Never throws: what failed is the status.
   */
  async start(): Promise<SandboxStatus> {
    if (!this.settings.enabled) return (this.current = { state: 'off' });
    let manager: Manager;
    try {
      manager = (await import('@anthropic-ai/sandbox-runtime')).SandboxManager;
    } catch (e) {
      return (this.current = { state: 'unavailable', why: `the sandbox library did not load (${(e as Error).message})`, install: 'reinstall agent' });
    }
    if (!manager.isSupportedPlatform())
      return (this.current = { state: 'unavailable', why: `unsupported platform (${process.platform})`, install: installHint() });
    const deps = manager.checkDependencies({ command: this.where.rgPath });
    if (deps.errors.length > 0) return (this.current = { state: 'unavailable', why: deps.errors.join('; '), install: installHint() });
    try {
      const ask = this.ask;
      const signals = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
      await manager.initialize(this.config(), ask ? (req) => this.askNetwork(ask, req.host, req.port ?? 0) : undefined, false);
      // The library stops its proxies on the first SIGINT or SIGTERM; this program's own handlers
      // decide what a signal does (print mode's first Ctrl+C interrupts the turn), and close() stops them.
      for (const [signal, before] of Object.entries(signals))
        for (const l of process.listeners(signal as 'SIGINT')) if (!before.includes(l)) process.removeListener(signal, l);
      mkdirSync(this.where.tmp, { recursive: true });
      const { argv, env } = await manager.wrapWithSandboxArgv('true', '/bin/sh', undefined, undefined, this.where.cwd);
      const probe = await runWrapped(argv, env, this.where.cwd);
      manager.cleanupAfterCommand();
      if (probe.code !== 0) {
        await manager.reset();
        const said = probe.output.trim().split('\n')[0] ?? '';
        return (this.current = {
          state: 'unavailable',
          // a probe that never started (its folder gone, for one) tells nothing of bubblewrap or socat
          why: probe.started
            ? `a test command failed inside it (exit code ${probe.code ?? 'none'}${said ? `: ${said}` : ''}); bubblewrap or socat is broken`
            : `its test command could not start in ${this.where.cwd} (${said})`,
          install: installHint(),
        });
      }
    } catch (e) {
      await manager.reset().catch(() => undefined);
      return (this.current = { state: 'unavailable', why: (e as Error).message, install: installHint() });
    }
    this.manager = manager;
    if (process.platform === 'linux') await this.startBridges(manager);
    return (this.current = { state: 'on', platform: process.platform, warnings: deps.warnings });
  }

  /** Whether the session's bridges carry the commands (false: each starts its own). */
  get sessionBridges(): boolean {
    return this.bridges?.alive === true;
  }

  /** The bridges once for the session, proved by a command run through them; where they cannot start, commands keep their own. */
  private async startBridges(manager: Manager): Promise<void> {
    const [http, socks] = [manager.getLinuxHttpSocketPath(), manager.getLinuxSocksSocketPath()];
    if (!http || !socks) return;
    // a wrap made while they ran is stale once they end
    const bridges = await SessionBridges.start(http, socks, () => this.generation++);
    if (typeof bridges === 'string') return;
    this.bridges = bridges;
    const probe = await this.wrapNow('/bin/sh', { cwd: this.where.cwd, readOnly: false, id: 'bridges-probe' }).then(
      (w) => (w.joined ? runWrapped(w.argv, { ...process.env, ...w.env, [COMMAND_VARIABLE]: 'true' }, this.where.cwd) : undefined),
      () => undefined,
    );
    manager.cleanupAfterCommand();
    if (probe?.code === 0) return;
    this.bridges = undefined;
    await bridges.stop();
  }

  plan(command: string, leave: boolean): SandboxPlan | undefined {
    if (!this.settings.enabled) return undefined;
    const s = this.current;
    if (s.state !== 'on') return { kind: 'unavailable', refuse: this.settings.failIfUnavailable, why: s.state === 'unavailable' ? s.why : 'not started' };
    if (leave)
      return this.settings.allowUnsandboxedCommands
        ? { kind: 'outside', reason: 'escape' }
        : { kind: 'outside', reason: 'escape', refused: 'sandbox.allowUnsandboxedCommands is false: commands cannot leave the sandbox' };
    const excluded = this.settings.excludedCommands.map(prefixWords).filter((w): w is string[] => w !== undefined);
    if (excluded.length > 0 && bashAllowedByPrefixes(command, excluded)) return { kind: 'outside', reason: 'excluded' };
    return { kind: 'inside', autoAllow: this.settings.autoAllowBashIfSandboxed };
  }

  async wrap(command: string, shell: string, o: { cwd: string; readOnly: boolean; id: string }): Promise<{ argv: string[]; env: Record<string, string> }> {
    const ready = await this.takePrepared(shell, o);
    this.running.set(o.id, { wrapId: ready?.id ?? o.id, shell, cwd: o.cwd });
    const w = ready ?? (await this.wrapNow(shell, o));
    return { argv: w.argv, env: { ...w.env, [COMMAND_VARIABLE]: command } };
  }

  /** The wrap prepared when the last command ended, if it fits this one and nothing it was made from changed; an unfit one is let go. */
  private async takePrepared(shell: string, o: { cwd: string; readOnly: boolean }): Promise<PreparedWrap | undefined> {
    const pending = this.pending;
    this.pending = undefined;
    const p = await pending;
    if (!p) return undefined;
    if (p.readOnly === o.readOnly && p.shell === shell && p.cwd === o.cwd && p.generation === this.generation && !p.fingerprint.changed()) return p;
    this.manager?.cleanupAfterCommand();
    return undefined;
  }

  /** Makes the next command's wrap now, while the model thinks (none while one waits). */
  private prepare(shell: string, o: { cwd: string; readOnly: boolean }): void {
    if (this.pending || !this.manager) return;
    const id = `prepared#${++this.preparedSeq}`;
    const generation = this.generation;
    const config = this.config();
    // taken before the wrap looks: a change while it looks makes it stale
    const fingerprint = sandboxFingerprint(this.where.cwd, NESTED_SEARCH_DEPTH, [...config.filesystem.denyRead, ...config.filesystem.denyWrite]);
    this.pending = this.wrapNow(shell, { ...o, id }).then(
      (w) => ({ id, generation, fingerprint, shell, ...o, ...w }),
      () => undefined,
    );
  }

  /** Until the next command's wrap is made (the bench waits, as a model's turn would). */
  async prepared(): Promise<void> {
    await this.pending;
  }

  /** A wrap of the command the environment will carry (every wrap is one: a prepared one is the same thing made earlier). */
  private async wrapNow(
    shell: string,
    o: { cwd: string; readOnly: boolean; id: string },
  ): Promise<{ argv: string[]; env: Record<string, string>; joined: boolean }> {
    const manager = this.manager;
    if (!manager?.isSandboxingEnabled()) throw new Error('the sandbox is not running');
    const custom = o.readOnly ? { filesystem: { ...this.config().filesystem, allowWrite: [] } } : undefined;
    const wrap = (bridgesListen: boolean) =>
      manager.wrapWithSandboxArgv(runFromEnv(process.platform, bridgesListen), shell, custom, undefined, o.cwd, { commandId: o.id });
    const bridges = this.bridges?.alive ? this.bridges : undefined;
    let { argv, env } = await wrap(bridges === undefined);
    const joined = bridges?.join(argv);
    if (bridges && !joined) {
      // not the wrap bridges.ts knows how to join: the library's own bridges, waited for
      manager.cleanupAfterCommand();
      ({ argv, env } = await wrap(true));
    }
    // only what the sandbox adds (its proxies' variables): the rest is the command's own environment, keys hidden
    const added: Record<string, string> = {};
    for (const [k, v] of Object.entries(env)) if (v !== undefined && process.env[k] !== v) added[k] = v;
    return { argv: joined ?? argv, env: added, joined: joined !== undefined };
  }

  denials(id: string, output: string, o: { readOnly: boolean }): string[] {
    const manager = this.manager;
    const run = this.running.get(id);
    this.running.delete(id);
    if (!manager) return [];
    const network = manager
      .getSandboxViolationStore()
      .getViolationsForCommand(run?.wrapId ?? id)
      .map((v) => v.line);
    manager.cleanupAfterCommand();
    if (run) this.prepare(run.shell, { cwd: run.cwd, readOnly: o.readOnly });
    return deniedIn(output, network, { cwd: this.where.cwd, readOnly: o.readOnly });
  }

  /** Stops the proxies (the end of the program). */
  async close(): Promise<void> {
    const manager = this.manager;
    this.manager = undefined;
    await this.pending;
    this.pending = undefined;
    await this.bridges?.stop();
    this.bridges = undefined;
    if (manager) await manager.reset().catch(() => undefined);
  }

  private config(): ReturnType<typeof runtimeConfig> {
    return runtimeConfig(this.settings, this.where, this.sessionDomains);
  }

  /** A domain off the list: the person is asked (the TUI); an allowed one stays allowed for the session. */
  private async askNetwork(ask: AskNetwork, host: string, port: number): Promise<boolean> {
    if (this.sessionDomains.includes(host)) return true;
    const yes = await ask(host, port).catch(() => false);
    if (yes) {
      this.sessionDomains.push(host);
      this.generation++;
      this.manager?.updateConfig(this.config());
    }
    return yes;
  }
}
