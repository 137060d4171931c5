// The sandbox started for real in a project of its own, shared by the runtime's tests
// (test/sandbox/runtime.test.ts) and its bench (bench/sandbox.ts): a git repository the process
// changes into (the library judges the project by the working directory), the runtime started in
// it, and background shells that keep the one job they are handed.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { rgPath } from '@vscode/ripgrep';
import { freshDefaults, type SandboxSettings } from '../../src/config/sandboxSettings.js';
import { type AskNetwork, SandboxRuntime } from '../../src/sandbox/runtime.js';
import { type Boundaries, SANDBOX_TMP } from '../../src/sandbox/settings.js';
import type { BackgroundJob, BackgroundShells } from '../../src/tools/types.js';

/** Settings with the sandbox on, and `over`. */
export const sandboxOn = (over: Partial<SandboxSettings> = {}): SandboxSettings => ({ ...freshDefaults(), enabled: true, ...over });

/** The sandbox on in `project` (made a git repository, and the working directory), asking `ask` about a domain off its list; throws where it cannot start (install bubblewrap and socat). */
export async function startedSandbox(
  project: string,
  home: string,
  over: Partial<SandboxSettings> = {},
  ask?: AskNetwork,
): Promise<{ sandbox: SandboxRuntime; where: Boundaries }> {
  process.chdir(project);
  execFileSync('git', ['init', '-q'], { cwd: project });
  const where = { cwd: project, home, trustFile: join(home, '.config/agent/trust.json'), tmp: SANDBOX_TMP, rgPath };
  const sandbox = new SandboxRuntime(sandboxOn(over), where, ask);
  const status = await sandbox.start();
  if (status.state !== 'on') throw new Error(`the sandbox did not start here: ${JSON.stringify(status)} (install bubblewrap and socat)`);
  return { sandbox, where };
}

/** Background shells that adopt a job and keep it (`job()`), for a command run in the background. */
export function keepingShells(): { shells: BackgroundShells; job: () => BackgroundJob | undefined } {
  let job: BackgroundJob | undefined;
  const shells: BackgroundShells = {
    refusal: () => undefined,
    adopt: (j) => {
      job = j;
      j.follow(() => undefined);
      return 'b1';
    },
    firstLines: () => '',
    output: () => undefined,
    markRead: () => undefined,
    search: () => [],
    holdForeground: () => () => undefined,
  };
  return { shells, job: () => job };
}
