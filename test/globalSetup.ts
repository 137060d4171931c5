import { buildDist } from '../scripts/build.js';

// End-to-end tests run the bundled CLI (bin/agent.js → dist/), what users run, so build it
// once per test run: a stale dist/ would test yesterday's code. esbuild takes about a second.
// The end-to-end projects of vitest.config.ts name this file (the unit files run no bundle); the
// build runs once for them all (a second build would delete dist/ under the first project's
// running tests).
const BUILD = Symbol.for('agent.test.distBuild');
type WithBuild = typeof globalThis & { [BUILD]?: Promise<unknown> };

export default async function setup(): Promise<void> {
  const g = globalThis as WithBuild;
  g[BUILD] ??= buildDist({ quiet: true });
  await g[BUILD];
}
