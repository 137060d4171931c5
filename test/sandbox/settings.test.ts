import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { ConfigError } from '../../src/config/configFile.js';
import { sandboxSettings } from '../../src/config/sandboxSettings.js';
import { deniedIn } from '../../src/sandbox/denials.js';
import { runtimeConfig, SECRET_READS } from '../../src/sandbox/settings.js';
import { ToolGate } from '../../src/session/toolGate.js';
import type { ApprovalRequest } from '../../src/tools/permissions.js';
import type { AnyTool, SandboxPlan } from '../../src/tools/types.js';
import { tempDir } from '../tempDirs.js';
import { sandboxOn } from './started.js';

function dirs(): { home: string; cwd: string } {
  const root = tempDir('sandbox-settings-');
  const home = join(root, 'home');
  const cwd = join(root, 'project');
  mkdirSync(join(home, '.claude'), { recursive: true });
  mkdirSync(join(cwd, '.claude'), { recursive: true });
  return { home, cwd };
}
const json = (file: string, value: unknown): void => writeFileSync(file, JSON.stringify(value));

describe('the sandbox settings, read as Claude Code reads them', () => {
  it("takes the person's own files whole, and a project's only where they narrow", () => {
    const { home, cwd } = dirs();
    json(join(home, '.claude', 'settings.json'), {
      sandbox: { enabled: true, network: { allowedDomains: ['registry.npmjs.org'], httpProxyPort: 1 }, filesystem: { allowWrite: ['~/cache'] } },
      permissions: { allow: [] },
    });
    json(join(cwd, '.claude', 'settings.json'), {
      sandbox: {
        enabled: false,
        autoAllowBashIfSandboxed: true,
        allowUnsandboxedCommands: false,
        excludedCommands: ['docker'],
        filesystem: { allowWrite: ['/etc'], denyWrite: ['secrets'] },
        network: { allowedDomains: ['evil.example'], deniedDomains: ['tracker.example'] },
      },
    });
    json(join(cwd, '.agentrc'), { sandbox: { failIfUnavailable: true, filesystem: { denyRead: ['~/.config/private'] } } });
    const warnings: string[] = [];
    const s = sandboxSettings(cwd, home, warnings);
    expect(s).toMatchObject({
      enabled: true,
      autoAllowBashIfSandboxed: true,
      allowUnsandboxedCommands: false,
      failIfUnavailable: true,
      excludedCommands: [],
      allowWrite: [join(home, 'cache')],
      denyWrite: [join(cwd, 'secrets')],
      denyRead: [join(home, '.config/private')],
      allowedDomains: ['registry.npmjs.org'],
      deniedDomains: ['tracker.example'],
    });
    const project = join(cwd, '.claude', 'settings.json');
    expect(warnings).toEqual([
      expect.stringContaining(`${project}: sandbox.enabled ignored: a project's settings may narrow the sandbox, not widen it`),
      expect.stringContaining(`${project}: sandbox.excludedCommands ignored`),
      expect.stringContaining(`${project}: sandbox.filesystem.allowWrite ignored`),
      expect.stringContaining(`${project}: sandbox.network.allowedDomains ignored`),
    ]);
  });

  it("a project may narrow each flag, never widen it; the files that set something are listed in the order read, the person's first", () => {
    const { home, cwd } = dirs();
    // the person's own: auto-allow off, leaving refused, failing open
    json(join(home, '.agentrc'), { sandbox: { enabled: true, autoAllowBashIfSandboxed: false, allowUnsandboxedCommands: false } });
    // a project that would widen each back
    json(join(cwd, '.claude', 'settings.local.json'), {
      sandbox: { autoAllowBashIfSandboxed: true, allowUnsandboxedCommands: true, failIfUnavailable: false },
    });
    const warnings: string[] = [];
    const s = sandboxSettings(cwd, home, warnings);
    expect(s).toMatchObject({ enabled: true, autoAllowBashIfSandboxed: false, allowUnsandboxedCommands: false, failIfUnavailable: false });
    const local = join(cwd, '.claude', 'settings.local.json');
    expect(warnings).toEqual([
      expect.stringContaining(
        `${local}: sandbox.autoAllowBashIfSandboxed ignored: a project's settings may narrow the sandbox, not widen it (it would run commands without asking)`,
      ),
      expect.stringContaining(
        `${local}: sandbox.allowUnsandboxedCommands ignored: a project's settings may narrow the sandbox, not widen it (it would let commands leave the sandbox)`,
      ),
    ]);
    expect(s.sources).toEqual([join(home, '.agentrc'), local]);
    // the person's defaults, each narrowed by a project: taken without a word
    const other = dirs();
    json(join(other.cwd, '.agentrc'), { sandbox: { autoAllowBashIfSandboxed: false, allowUnsandboxedCommands: false, failIfUnavailable: true } });
    const narrowed: string[] = [];
    expect(sandboxSettings(other.cwd, other.home, narrowed)).toMatchObject({
      enabled: false,
      autoAllowBashIfSandboxed: false,
      allowUnsandboxedCommands: false,
      failIfUnavailable: true,
      sources: [join(other.cwd, '.agentrc')],
    });
    expect(narrowed).toEqual([]);
  });

  it('a project may turn it on; it is off by default; a bad value is an error naming the file and the field', () => {
    const { home, cwd } = dirs();
    expect(sandboxSettings(cwd, home).enabled).toBe(false);
    json(join(cwd, '.claude', 'settings.local.json'), { sandbox: { enabled: true } });
    expect(sandboxSettings(cwd, home).enabled).toBe(true);
    json(join(cwd, '.claude', 'settings.json'), { sandbox: { enabled: 'yes' } });
    expect(() => sandboxSettings(cwd, home)).toThrow(ConfigError);
    expect(() => sandboxSettings(cwd, home)).toThrow(`${join(cwd, '.claude', 'settings.json')}: field "sandbox.enabled"`);
    json(join(cwd, '.agentrc'), { sandbox: { enabled: true, unknownKey: 1 } });
    expect(() => loadConfig({ cwd, env: {}, flags: {}, home })).toThrow(/\.agentrc.*sandbox\.unknownKey/);
    // an .agentrc is read as this program's file (strict), a settings.json as Claude Code's (its keys picked)
    json(join(cwd, '.claude', 'settings.json'), { sandbox: { enabled: true, unknownKey: 1 } });
    expect(() => sandboxSettings(cwd, home)).toThrow(/\.agentrc.*sandbox\.unknownKey/);
    json(join(cwd, '.agentrc'), {});
    expect(sandboxSettings(cwd, home).enabled).toBe(true);
  });

  it("reads only its keys of Claude Code's sandbox; a sandbox that is not an object is an error naming the file; a file that is not one is left to the hooks' reader", () => {
    const { home, cwd } = dirs();
    const file = join(cwd, '.claude', 'settings.json');
    // Claude Code's own keys beside this program's, at each level: ignored, not errors
    json(file, {
      sandbox: {
        enabled: true,
        ignoreViolations: { x: ['y'] },
        filesystem: { denyRead: ['secret'], other: 1 },
        network: { deniedDomains: ['evil.test'], allowUnixSockets: ['/s'] },
      },
    });
    const read = sandboxSettings(cwd, home);
    expect(read.enabled).toBe(true);
    expect(read.denyRead).toContain(join(cwd, 'secret'));
    expect(read.deniedDomains).toContain('evil.test');
    // mutation: isObject's `&&` made `||`: every value read as an object, these taken as empty sandboxes
    for (const sandbox of [true, 'on', ['enabled'], null]) {
      json(file, { sandbox });
      expect(() => sandboxSettings(cwd, home), JSON.stringify(sandbox)).toThrow(`${file}: field "sandbox" must be an object`);
    }
    json(file, { sandbox: { enabled: true, filesystem: 'everything' } });
    expect(() => sandboxSettings(cwd, home)).toThrow(`${file}: field "sandbox.filesystem"`);
    // a settings file that is an array, or not JSON: no sandbox here, nothing thrown
    json(file, [{ sandbox: { enabled: true } }]);
    expect(sandboxSettings(cwd, home)).toMatchObject({ enabled: false, sources: [] });
    writeFileSync(file, '{ not json');
    expect(sandboxSettings(cwd, home)).toMatchObject({ enabled: false, sources: [] });
  });
});

describe("the library's configuration", () => {
  it("the person's lists after the program's own, the session's domains last; nested repositories looked for 3 deep", () => {
    const settings = {
      ...sandboxOn(),
      allowedDomains: ['a.org'],
      deniedDomains: ['b.org'],
      denyRead: ['/secret'],
      allowWrite: ['/cache'],
      denyWrite: ['/etc'],
    };
    const where = { cwd: '/p', home: '/h', trustFile: '/h/trust.json', tmp: '/t', rgPath: '/rg' };
    expect(runtimeConfig(settings, where, ['asked.org'])).toEqual({
      network: { allowedDomains: ['a.org', 'asked.org'], deniedDomains: ['b.org'] },
      filesystem: {
        denyRead: [...SECRET_READS.map((p) => `/h/${p}`), '/secret'],
        allowWrite: ['/p', '/t', '/cache'],
        denyWrite: ['/p/.agentrc', '/p/.claude', '/p/.agent', '/p/.agents', '/h/trust.json', '/etc'],
      },
      ripgrep: { command: '/rg' },
      // each command pays for the library's scan of the project to this depth: a figure chosen, not one to drift
      mandatoryDenySearchDepth: 3,
    });
  });
});

describe('what the sandbox denied, read back for the model', () => {
  it('names the paths of refused writes, the refused domains, and a loopback out of reach', () => {
    const output = [
      '/bin/bash: line 1: /home/me/out.txt: Read-only file system',
      "touch: cannot touch '.git/hooks/pre-commit': Read-only file system",
      '/bin/bash: line 1: .agentrc: Permission denied',
      "curl: (7) Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect to server",
      'an ordinary line',
    ].join('\n');
    expect(deniedIn(output, ['deny network-outbound example.org:443 (host is not on the allow list)'], { cwd: '/p', readOnly: false })).toEqual([
      'write denied: /home/me/out.txt (outside the writable paths, or on the deny list)',
      'write denied: .git/hooks/pre-commit (outside the writable paths, or on the deny list)',
      'write denied: .agentrc (on the deny list)',
      'network denied: example.org:443 (host is not on the allow list)',
      'network denied: 127.0.0.1:8080 (the sandbox has its own loopback: servers outside it are out of reach, except through an excluded command)',
    ]);
    expect(deniedIn('all good\n', [], { cwd: '/p', readOnly: false })).toEqual([]);
  });

  it('names each denial once, however often the command hit it', () => {
    const twice = "touch: cannot touch '/etc/x': Read-only file system\ntouch: cannot touch '/etc/x': Read-only file system\n";
    // mutation: adding every line found lists the write twice, the connection twice
    expect(
      deniedIn(twice, ['deny network-outbound a.org:443 (host is not on the allow list)', 'deny network-outbound a.org:443 (host is not on the allow list)'], {
        cwd: '/p',
        readOnly: true,
      }),
    ).toEqual(['write denied: /etc/x (plan mode runs commands in a read-only sandbox)', 'network denied: a.org:443 (host is not on the allow list)']);
  });

  it("reads the other shapes of an error line: the path first, dash's 'cannot create', a line naming none; a connection refused on loopback from node or curl", () => {
    const output = [
      // a line naming no path is passed over, not the end of the reading
      'sh: 1: Operation not permitted',
      'out.txt: Read-only file system',
      '/bin/sh: 1: cannot create /etc/motd: Permission denied',
      'Error: connect ECONNREFUSED ::1:3000',
    ].join('\n');
    expect(deniedIn(output, ['a line the library wrote otherwise'], { cwd: '/p', readOnly: false })).toEqual([
      'write denied: out.txt (outside the writable paths, or on the deny list)',
      'write denied: /etc/motd (on the deny list)',
      'network denied: a line the library wrote otherwise',
      'network denied: ::1:3000 (the sandbox has its own loopback: servers outside it are out of reach, except through an excluded command)',
    ]);
    // typographic quotes (coreutils in a UTF-8 locale) and double ones; the reason as the line gave it
    const quoted = [
      'mkdir: cannot create directory ‘/etc/new’: Operation not permitted',
      'cp: cannot create regular file "/etc/y": Read-only file system',
    ].join('\n');
    expect(deniedIn(quoted, [], { cwd: '/p', readOnly: false })).toEqual([
      'write denied: /etc/new (on the deny list)',
      'write denied: /etc/y (outside the writable paths, or on the deny list)',
    ]);
    expect(deniedIn('curl: (7) Failed to connect to localhost port 5173: Connection refused', [], { cwd: '/p', readOnly: false })).toEqual([
      'network denied: localhost:5173 (the sandbox has its own loopback: servers outside it are out of reach, except through an excluded command)',
    ]);
    // curl to IPv6 loopback, with and without brackets (mutation: `::1` moved)
    for (const host of ['::1', '[::1]'])
      expect(deniedIn(`curl: (7) Failed to connect to ${host} port 8080 after 0 ms: Connection refused`, [], { cwd: '/p', readOnly: false })).toEqual([
        `network denied: ${host}:8080 (the sandbox has its own loopback: servers outside it are out of reach, except through an excluded command)`,
      ]);
    expect(deniedIn('curl: (7) Failed to connect to ::2 port 8080: Connection refused', [], { cwd: '/p', readOnly: false })).toEqual([]);
    // an indented line (a build tool's): the path without its indent (mutation: the field not trimmed)
    expect(deniedIn('    dist/out.js: Read-only file system', [], { cwd: '/p', readOnly: false })).toEqual([
      'write denied: dist/out.js (outside the writable paths, or on the deny list)',
    ]);
    expect(deniedIn('  out.txt: Read-only file system', [], { cwd: '/p', readOnly: false })).toEqual([
      'write denied: out.txt (outside the writable paths, or on the deny list)',
    ]);
  });
});

describe('the gate for a sandboxed command', () => {
  const asked: ApprovalRequest[] = [];
  const gateFor = (mode: string, approver: boolean): ToolGate => {
    const { home, cwd } = dirs();
    const config = loadConfig({ cwd, env: {}, flags: { permissionMode: mode }, home });
    return new ToolGate(
      () => config,
      undefined,
      approver
        ? async (req) => {
            asked.push(req);
            return { kind: 'allow_once' };
          }
        : undefined,
      () => undefined,
    );
  };
  const tool = (plan: SandboxPlan): AnyTool =>
    ({
      name: 'Bash',
      description: '',
      inputSchema: { type: 'object' },
      kind: 'execute',
      parse: (i: unknown) => i,
      summarize: () => 'ls',
      sandboxPlan: () => plan,
      run: async () => ({ content: '', isError: false }),
    }) as AnyTool;
  const decide = (gate: ToolGate, plan: SandboxPlan) =>
    gate.authorize({ tool: tool(plan), input: { command: 'ls' }, summary: 'ls', toolUseId: 't1' }, new AbortController().signal);

  it('auto-allows inside the sandbox (ask, acceptEdits), plan mode runs read-only, and without auto-allow it asks', async () => {
    asked.length = 0;
    expect(await decide(gateFor('ask', false), { kind: 'inside', autoAllow: true })).toEqual({ ok: true });
    expect(await decide(gateFor('acceptEdits', false), { kind: 'inside', autoAllow: true })).toEqual({ ok: true });
    expect(await decide(gateFor('plan', false), { kind: 'inside', autoAllow: true })).toEqual({ ok: true, sandbox: 'readOnly' });
    expect(await decide(gateFor('ask', false), { kind: 'inside', autoAllow: false })).toMatchObject({ ok: false });
    expect(await decide(gateFor('deny', false), { kind: 'inside', autoAllow: true })).toMatchObject({ ok: false });
    expect(asked).toEqual([]);
  });

  it('an escape asks the person each time (once-only), is refused without anyone to ask, in plan mode, or when escapes are off', async () => {
    asked.length = 0;
    expect(await decide(gateFor('ask', true), { kind: 'outside', reason: 'escape' })).toEqual({ ok: true, sandbox: 'outside' });
    expect(asked).toEqual([expect.objectContaining({ onceOnly: true, unsandboxed: 'the model asks to run it outside the sandbox' })]);
    expect(await decide(gateFor('acceptEdits', false), { kind: 'outside', reason: 'escape' })).toMatchObject({
      ok: false,
      message: expect.stringContaining('nobody can approve'),
    });
    expect(await decide(gateFor('plan', true), { kind: 'outside', reason: 'escape' })).toMatchObject({ ok: false });
    expect(await decide(gateFor('ask', true), { kind: 'outside', reason: 'escape', refused: 'escapes are off' })).toMatchObject({ ok: false });
    expect(asked).toHaveLength(1);
  });

  it('a sandbox that cannot start: every command asks, in every mode, plan and allow too; refused with failIfUnavailable', async () => {
    asked.length = 0;
    for (const mode of ['ask', 'acceptEdits', 'plan', 'allow'])
      expect(await decide(gateFor(mode, true), { kind: 'unavailable', refuse: false, why: 'no bwrap' })).toEqual({ ok: true });
    expect(asked).toHaveLength(4);
    expect(asked[0]?.unsandboxed).toContain('the sandbox cannot start (no bwrap)');
    expect(await decide(gateFor('allow', false), { kind: 'unavailable', refuse: false, why: 'no bwrap' })).toMatchObject({ ok: false });
    expect(await decide(gateFor('ask', true), { kind: 'unavailable', refuse: true, why: 'no bwrap' })).toMatchObject({
      ok: false,
      message: expect.stringContaining('failIfUnavailable'),
    });
    expect(asked).toHaveLength(4);
  });
});

// Mutations checked: a project's flag applied as the person's (`own ||` dropped: enabled false
// wins); the auto-allow branch removed from decideSandboxed (the first gate test asks nobody and
// is refused); askOnce replaced by byPolicy for an unavailable sandbox (allow mode runs without
// asking); the escape's `onceOnly` dropped (the request no longer matches).
