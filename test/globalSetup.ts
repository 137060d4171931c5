import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

// End-to-end tests run the built CLI (bin/agent.js → dist/), so build it once per test run:
// a stale dist/ would test yesterday's code.
export default function setup(): void {
  const root = resolve(__dirname, '..');
  execFileSync(process.execPath, [resolve(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
}
