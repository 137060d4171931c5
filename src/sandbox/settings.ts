// What the sandbox allows, as the library's configuration: writes to the project, its temp
// folder and the configured paths; never to the mandatory deny list inside the project (the
// library's own: .git/hooks, .git/config, shell rc files, .vscode, .idea, .mcp.json, added only where
// they can be; and this
// program's: its config and trust files, its agents, commands and skills); no reads of the
// person's secrets (~/.ssh, cloud credentials, and what is configured); the network only through
// the proxy, to the allowed domains. Pure: the runtime (runtime.ts) hands it to the library.
import { join } from 'node:path';
import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import type { SandboxSettings } from '../config/sandboxSettings.js';

/** Where this run is: the project, the person's home, the trust file, the temp folder the sandbox gives commands, ripgrep. */
export interface Boundaries {
  cwd: string;
  home: string;
  /** The file of the person's approvals (trust/projectTrust.ts). */
  trustFile: string;
  /** The sandbox's temp folder (TMPDIR inside): writable, created at start. */
  tmp: string;
  /** The ripgrep the library scans the project with for nested dangerous files. */
  rgPath: string;
}

/** The temp folder the library binds writable and points TMPDIR at. */
export const SANDBOX_TMP = '/tmp/claude';

/** Inside the project: what a command may never write, whatever allowWrite says (the agent's own config, trust and code it runs). */
export const PROJECT_DENY_WRITE = ['.agentrc', '.claude', '.agent', '.agents'];

/** Under the person's home: secrets no command reads. */
export const SECRET_READS = ['.ssh', '.aws', '.azure', '.config/gcloud', '.kube', '.gnupg', '.docker/config.json', '.netrc', '.npmrc', '.pypirc'];

/** How deep the library looks for nested .git/hooks, .bashrc and the like in the project (each command pays for the scan). */
export const NESTED_SEARCH_DEPTH = 3;

export function runtimeConfig(s: SandboxSettings, b: Boundaries, sessionDomains: readonly string[]): SandboxRuntimeConfig {
  return {
    network: { allowedDomains: [...s.allowedDomains, ...sessionDomains], deniedDomains: [...s.deniedDomains] },
    filesystem: {
      denyRead: [...SECRET_READS.map((p) => join(b.home, p)), ...s.denyRead],
      allowWrite: [b.cwd, b.tmp, ...s.allowWrite],
      denyWrite: [...PROJECT_DENY_WRITE.map((p) => join(b.cwd, p)), b.trustFile, ...s.denyWrite],
    },
    ripgrep: { command: b.rgPath },
    mandatoryDenySearchDepth: NESTED_SEARCH_DEPTH,
  };
}
