// The `sandbox` keys a settings file may hold (.agentrc's, and Claude Code's settings files'):
// the schema alone, so that schema.ts (the whole .agentrc) and sandboxSettings.ts (how the files
// combine) share it without importing each other.
import * as z from 'zod/mini';

const nonEmptyString = z.string().check(z.minLength(1));

/**
 * The OS sandbox Bash runs in, with Claude Code's keys (`sandbox` in its settings files; the same
 * here). What a file may set; how the files combine (a project's may narrow, never widen) is
 * config/sandboxSettings.ts.
 */
export const SandboxFileSchema = z.strictObject({
  /** Run every Bash command inside the sandbox (bubblewrap + a filtering proxy on Linux, Seatbelt on macOS). Default false. */
  enabled: z.optional(z.boolean()),
  /** A command that runs inside the sandbox runs without asking (ask and acceptEdits modes). Default true. */
  autoAllowBashIfSandboxed: z.optional(z.boolean()),
  /** The model may ask to run one command outside the sandbox (dangerouslyDisableSandbox), which the person approves each time. Default true. */
  allowUnsandboxedCommands: z.optional(z.boolean()),
  /** When the sandbox cannot start, refuse every command instead of asking for each. Default false. */
  failIfUnavailable: z.optional(z.boolean()),
  /** Command prefixes that run outside the sandbox, through the usual approval ("docker", "git push"). */
  excludedCommands: z.optional(z.array(nonEmptyString)),
  filesystem: z.optional(
    z.strictObject({
      /** More paths commands may write (the project and its temp folder always). */
      allowWrite: z.optional(z.array(nonEmptyString)),
      /** Paths commands may not write, even inside the project (.git/hooks and the agent's own files always). */
      denyWrite: z.optional(z.array(nonEmptyString)),
      /** Paths commands may not read (~/.ssh and cloud credentials always). */
      denyRead: z.optional(z.array(nonEmptyString)),
    }),
  ),
  network: z.optional(
    z.strictObject({
      /** Domains commands may reach through the proxy ("registry.npmjs.org", "*.github.com"); another asks in the TUI, is refused in -p. */
      allowedDomains: z.optional(z.array(nonEmptyString)),
      /** Domains never reached, whatever else allows them. */
      deniedDomains: z.optional(z.array(nonEmptyString)),
    }),
  ),
});
export type SandboxFileConfig = z.infer<typeof SandboxFileSchema>;
