#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm install` through `prepare`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('agent: dist/cli.js is missing; run `npm install` (or `npm run build`) in the agent checkout first.\n');
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv);
