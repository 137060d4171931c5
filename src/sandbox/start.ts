// Starting the sandbox for a run (bootstrap calls it): where it is (the project, home, the trust
// file, ripgrep), how a connection off the allow-list is asked, and the loud start-up notice when
// it cannot start. Nothing here runs when sandbox.enabled is not set.
import { homedir } from 'node:os';
import type { Config } from '../config/config.js';
import { resolveRg } from '../tools/grep.js';
import type { Approver } from '../tools/permissions.js';
import { TOOL } from '../tools/toolNames.js';
import { SandboxRuntime } from './runtime.js';
import { SANDBOX_TMP } from './settings.js';
import { unavailableText } from './status.js';

/**
 * The sandbox, started when the settings enable it (undefined otherwise). One that cannot start is
 * said at start (a notice; standard error in print mode) with what to install, and every command
 * then asks (docs/sandbox.md). A connection to a domain off the list asks the person when someone
 * can answer; print mode has nobody, and refuses it.
 */
export async function startSandbox(config: Config, trustFile: string, approver: Approver | undefined): Promise<SandboxRuntime | undefined> {
  if (!config.sandbox?.enabled) return undefined;
  const ask = approver
    ? async (host: string, port: number): Promise<boolean> => {
        const answer = await approver(
          {
            toolName: TOOL.Bash,
            toolUseId: `sandbox-network-${host}:${port}`,
            input: { host, port },
            summary: `a connection to ${host}:${port}, which sandbox.network.allowedDomains does not list (allowed, ${host} stays allowed for this session)`,
            onceOnly: true,
          },
          new AbortController().signal,
        );
        return answer.kind !== 'deny';
      }
    : undefined;
  const where = { cwd: config.cwd, home: homedir(), trustFile, tmp: SANDBOX_TMP, rgPath: (await resolveRg(undefined)) ?? 'rg' };
  const sandbox = new SandboxRuntime(config.sandbox, where, ask);
  const status = await sandbox.start();
  if (status.state === 'unavailable') config.warnings.push(unavailableText(status, config.sandbox));
  return sandbox;
}
