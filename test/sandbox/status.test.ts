import { describe, expect, it } from 'vitest';
import { freshDefaults } from '../../src/config/sandboxSettings.js';
import { PROJECT_DENY_WRITE, SANDBOX_TMP, SECRET_READS } from '../../src/sandbox/settings.js';
import { sandboxBadge, sandboxReport, unavailableText } from '../../src/sandbox/status.js';

// What the person is told of the sandbox: the footer's word, /sandbox's report (on, unavailable,
// off) and the start-up notice of one that cannot start. The running sandbox is runtime.test.ts's.

const on = { ...freshDefaults(), enabled: true, allowedDomains: ['registry.npmjs.org'], sources: ['~/.claude/settings.json'] };
const missing = { state: 'unavailable' as const, why: 'bubblewrap (bwrap) not installed', install: 'apt-get install bubblewrap socat' };

describe('the sandbox as the person is told of it', () => {
  it('the footer says sandboxed, warns when it cannot start, and says nothing when it is off', () => {
    expect(sandboxBadge({ state: 'on', platform: 'linux', warnings: [] })).toEqual({ text: 'sandboxed', ok: true });
    expect(sandboxBadge(missing)).toEqual({ text: '⚠ sandbox unavailable: commands ask', ok: false });
    expect(sandboxBadge({ state: 'off' })).toBeUndefined();
    expect(sandboxBadge(undefined)).toBeUndefined();
  });

  it('/sandbox says it is on, with its warnings and the settings in force', () => {
    const report = sandboxReport({ state: 'on', platform: 'linux', warnings: ['no seccomp filter'] }, on).split('\n');
    expect(report[0]).toBe('Sandbox: on (bubblewrap with a filtering proxy). Warnings: no seccomp filter.');
    expect(report).toContain('  auto-allow inside the sandbox: yes (ask and acceptEdits modes)');
    expect(report).toContain('  network allowed: registry.npmjs.org (others ask in the TUI, are refused in -p)');
    expect(report).toContain('  settings read from: ~/.claude/settings.json');
    expect(report.join('\n')).not.toMatch(/UNAVAILABLE/);
  });

  it('/sandbox says why it cannot start, what to install, and what Bash does meanwhile', () => {
    const asks = sandboxReport(missing, on);
    expect(asks).toMatch(
      /^Sandbox: UNAVAILABLE — bubblewrap \(bwrap\) not installed\.\nMissing or broken: install what it needs: apt-get install bubblewrap socat\./,
    );
    expect(asks).toContain('Every Bash command asks before it runs unsandboxed.');
    expect(asks).not.toMatch(/^Sandbox: on/);
    const refuses = sandboxReport(missing, { ...on, failIfUnavailable: true });
    expect(refuses).toContain('Every Bash command is refused (failIfUnavailable).');
    expect(unavailableText(missing, { ...on, failIfUnavailable: true })).toBe(
      'The sandbox is enabled but cannot start: bubblewrap (bwrap) not installed. To fix: apt-get install bubblewrap socat. Until then sandbox.failIfUnavailable is set, so every Bash command is refused.',
    );
    expect(unavailableText(missing, on)).toContain('every Bash command asks before it runs, unsandboxed (print mode refuses them)');
  });

  it('/sandbox off, or not enabled in the settings, says how to turn it on', () => {
    expect(sandboxReport({ state: 'off' }, on)).toMatch(/^Sandbox: off\..*\nTurn it on with "sandbox": \{ "enabled": true \}/);
    expect(sandboxReport({ state: 'on', platform: 'linux', warnings: [] }, { ...on, enabled: false })).toMatch(/^Sandbox: off\./);
  });

  it("/sandbox lists every setting in force, each list with what was added to the program's own, (none) for an empty one; macOS is Seatbelt", () => {
    const all = {
      ...on,
      autoAllowBashIfSandboxed: false,
      allowUnsandboxedCommands: false,
      failIfUnavailable: true,
      excludedCommands: ['docker', 'podman'],
      allowWrite: ['/srv/cache'],
      denyWrite: ['/p/secrets'],
      denyRead: ['/home/me/.aws'],
      allowedDomains: [],
      deniedDomains: ['tracker.example'],
      sources: [],
    };
    expect(sandboxReport({ state: 'on', platform: 'darwin', warnings: [] }, all).split('\n')).toEqual([
      'Sandbox: on (Seatbelt).',
      '  auto-allow inside the sandbox: no',
      '  commands may ask to leave it: no',
      '  fail if unavailable: yes',
      '  excluded commands: docker, podman',
      `  writable: the project, ${SANDBOX_TMP}, /srv/cache`,
      `  never written: .git/hooks, .git/config, shell rc files, ${PROJECT_DENY_WRITE.join(', ')}, the trust file, /p/secrets`,
      `  never read: ~/${SECRET_READS.join(', ~/')}, /home/me/.aws`,
      '  network allowed: (none) (others ask in the TUI, are refused in -p)',
      '  network denied: tracker.example',
      '  settings read from: (none)',
    ]);
    const fresh = sandboxReport({ state: 'on', platform: 'linux', warnings: [] }, on).split('\n');
    expect(fresh).toContain('  commands may ask to leave it: yes, approved one by one');
    expect(fresh).toContain('  fail if unavailable: no');
    expect(fresh).toContain('  excluded commands: (none)');
    expect(fresh).toContain(`  writable: the project, ${SANDBOX_TMP}`);
    expect(fresh).toContain(`  never read: ~/${SECRET_READS.join(', ~/')}`);
    expect(sandboxReport(undefined, on)).toMatch(/^Sandbox: off\./);
  });
});
