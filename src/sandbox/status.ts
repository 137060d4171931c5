// What the person is told about the sandbox: the start-up notice when it cannot start, the
// footer's word, and /sandbox's (and `agent doctor`'s) report of its state, its settings as
// resolved and what is missing. Text only.
import type { SandboxSettings } from '../config/sandboxSettings.js';
import type { SandboxStatus } from './runtime.js';
import { PROJECT_DENY_WRITE, SANDBOX_TMP, SECRET_READS } from './settings.js';

/** The start-up notice of a sandbox that cannot start: why, what to install, and what happens meanwhile. */
export function unavailableText(s: Extract<SandboxStatus, { state: 'unavailable' }>, settings: SandboxSettings): string {
  const then = settings.failIfUnavailable
    ? 'sandbox.failIfUnavailable is set, so every Bash command is refused'
    : 'every Bash command asks before it runs, unsandboxed (print mode refuses them)';
  return `The sandbox is enabled but cannot start: ${s.why}. To fix: ${s.install}. Until then ${then}.`;
}

/** The footer's word: absent when the sandbox is off. */
export function sandboxBadge(s: SandboxStatus | undefined): { text: string; ok: boolean } | undefined {
  if (!s || s.state === 'off') return undefined;
  return s.state === 'on' ? { text: 'sandboxed', ok: true } : { text: '⚠ sandbox unavailable: commands ask', ok: false };
}

const list = (l: readonly string[]): string => (l.length > 0 ? l.join(', ') : '(none)');

/** /sandbox: the state, the resolved settings, and what is missing. */
export function sandboxReport(s: SandboxStatus | undefined, settings: SandboxSettings | undefined): string {
  if (!settings?.enabled || !s || s.state === 'off')
    return [
      'Sandbox: off. Bash commands run without an OS sandbox, guarded by the permission prompts only.',
      'Turn it on with "sandbox": { "enabled": true } in ~/.claude/settings.json or ~/.agentrc (Linux needs bubblewrap and socat; see docs/sandbox.md).',
    ].join('\n');
  const state =
    s.state === 'on'
      ? `Sandbox: on (${s.platform === 'darwin' ? 'Seatbelt' : 'bubblewrap with a filtering proxy'}).${s.warnings.length > 0 ? ` Warnings: ${s.warnings.join('; ')}.` : ''}`
      : `Sandbox: UNAVAILABLE — ${s.why}.\nMissing or broken: install what it needs: ${s.install}.\n${settings.failIfUnavailable ? 'Every Bash command is refused (failIfUnavailable).' : 'Every Bash command asks before it runs unsandboxed.'}`;
  return [
    state,
    `  auto-allow inside the sandbox: ${settings.autoAllowBashIfSandboxed ? 'yes (ask and acceptEdits modes)' : 'no'}`,
    `  commands may ask to leave it: ${settings.allowUnsandboxedCommands ? 'yes, approved one by one' : 'no'}`,
    `  fail if unavailable: ${settings.failIfUnavailable ? 'yes' : 'no'}`,
    `  excluded commands: ${list(settings.excludedCommands)}`,
    `  writable: the project, ${SANDBOX_TMP}${settings.allowWrite.length > 0 ? `, ${settings.allowWrite.join(', ')}` : ''}`,
    `  never written: .git/hooks, .git/config, shell rc files, ${PROJECT_DENY_WRITE.join(', ')}, the trust file${settings.denyWrite.length > 0 ? `, ${settings.denyWrite.join(', ')}` : ''}`,
    `  never read: ~/${SECRET_READS.join(', ~/')}${settings.denyRead.length > 0 ? `, ${settings.denyRead.join(', ')}` : ''}`,
    `  network allowed: ${list(settings.allowedDomains)} (others ask in the TUI, are refused in -p)`,
    `  network denied: ${list(settings.deniedDomains)}`,
    `  settings read from: ${list(settings.sources)}`,
  ].join('\n');
}
