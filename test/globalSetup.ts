import { buildDist } from '../scripts/build.js';

// End-to-end tests run the bundled CLI (bin/agent.js → dist/), what users run, so build it
// once per test run: a stale dist/ would test yesterday's code. esbuild takes about a second.
export default async function setup(): Promise<void> {
  await buildDist({ quiet: true });
}
