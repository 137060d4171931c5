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
import { deniedIn } from './denials.js';
import { runtimeConfig, type Boundaries } from './settings.js';

type Manager = typeof import('@anthropic-ai/sandbox-runtime')['SandboxManager'];

export type SandboxStatus =
  | { state: 'off' }
  | { state: 'on'; platform: string; warnings: string[] }
  /** Configured, but it cannot start: `why` names what is missing or broken, `install` what to do. */
  | { state: 'unavailable'; why: string; install: string };

/** A network connection the allow-list does not cover: asked in the TUI (true: allowed for the session); none in print mode, where it is refused. */
export type AskNetwork = (host: string, port: number) => Promise<boolean>;

const INSTALL: Record<string, string> = {
  linux: 'install bubblewrap and socat (Debian/Ubuntu: apt-get install bubblewrap socat; Fedora: dnf install bubblewrap socat)',
  darwin: 'macOS has Seatbelt (sandbox-exec) built in; check that /usr/bin/sandbox-exec runs',
};
const installHint = (): string => INSTALL[process.platform] ?? `the sandbox supports Linux (bubblewrap) and macOS (Seatbelt), not ${process.platform}`;

/** Runs a wrapped command to its end: its exit code and what it printed (the start-up probe). */
function runWrapped(argv: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', (e) => resolve({ code: null, output: e.message }));
    child.once('close', (code) => resolve({ code, output }));
  });
}

export class SandboxRuntime implements CommandSandbox {
  private manager: Manager | undefined;
  private current: SandboxStatus = { state: 'off' };
  /** Domains the person allowed in this session (asked in the TUI). */
  private readonly sessionDomains: string[] = [];

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
      await manager.initialize(this.config(), ask ? (req) => this.askNetwork(ask, req.host, req.port ?? 0) : undefined, false);
      mkdirSync(this.where.tmp, { recursive: true });
      const { argv, env } = await manager.wrapWithSandboxArgv('true', '/bin/sh', undefined, undefined, this.where.cwd);
      const probe = await runWrapped(argv, env, this.where.cwd);
      manager.cleanupAfterCommand();
      if (probe.code !== 0) {
        await manager.reset();
        const said = probe.output.trim().split('\n')[0] ?? '';
        return (this.current = {
          state: 'unavailable',
          why: `a test command failed inside it (exit code ${probe.code ?? 'none'}${said ? `: ${said}` : ''}); bubblewrap or socat is broken`,
          install: installHint(),
        });
      }
    } catch (e) {
      await manager.reset().catch(() => undefined);
      return (this.current = { state: 'unavailable', why: (e as Error).message, install: installHint() });
    }
    this.manager = manager;
    return (this.current = { state: 'on', platform: process.platform, warnings: deps.warnings });
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
    const manager = this.manager;
    if (!manager) throw new Error('the sandbox is not running');
    const custom = o.readOnly ? { filesystem: { ...this.config().filesystem, allowWrite: [] } } : undefined;
    const { argv, env } = await manager.wrapWithSandboxArgv(command, shell, custom, undefined, o.cwd, { commandId: o.id });
    // only what the sandbox adds (its proxies' variables): the rest is the command's own environment, keys hidden
    const added: Record<string, string> = {};
    for (const [k, v] of Object.entries(env)) if (v !== undefined && process.env[k] !== v) added[k] = v;
    return { argv, env: added };
  }

  denials(id: string, output: string, o: { readOnly: boolean }): string[] {
    const manager = this.manager;
    if (!manager) return [];
    const network = manager
      .getSandboxViolationStore()
      .getViolationsForCommand(id)
      .map((v) => v.line);
    manager.cleanupAfterCommand();
    return deniedIn(output, network, { cwd: this.where.cwd, readOnly: o.readOnly });
  }

  /** Stops the proxies (the end of the program). */
  async close(): Promise<void> {
    const manager = this.manager;
    this.manager = undefined;
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
      this.manager?.updateConfig(this.config());
    }
    return yes;
  }
}
