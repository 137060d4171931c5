// A goal's check runs as the Bash tool runs a command: through the tool itself (its shell, the
// project as cwd, the environment without the keys, its output cleaned and redacted, and the
// sandbox the tool runs in wherever there is one), in the foreground, with the longest timeout
// Bash allows. The person typed it (`/goal … --check`), so it asks nobody. It passes on exit 0.
import type { AnyTool } from '../tools/types.js';
import type { CheckRunner } from './sessionGoal.js';

export function bashCheck(bash: AnyTool | undefined, cwd: string, timeoutMs: number): CheckRunner {
  return async (command, signal) => {
    if (!bash) return { output: 'The check could not run: this session has no Bash tool.', passed: false };
    const out = await bash.run(bash.parse({ command, description: 'the goal check', timeout: timeoutMs }), { cwd, signal });
    return { output: out.content, passed: !out.isError };
  };
}
