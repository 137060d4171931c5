#!/usr/bin/env node
// Thin launcher: the bundled CLI lives in dist/ (built by `npm install` through `prepare`).
// CommonJS (bin/package.json): Node starts a CommonJS entry faster than an ES module one.
'use strict';
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

// `agent --version` alone answers here, as fast as node starts: nothing else to load.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  process.stdout.write(`${JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version}\n`);
  process.exit(0);
}

const entry = join(__dirname, '..', 'dist', 'cli.js');
if (!existsSync(entry)) {
  process.stderr.write('agent: dist/cli.js is missing; run `npm install` (or `npm run build`) in the agent checkout first.\n');
  process.exit(1);
}
// Stack traces point at src/ through the bundle's source maps. Reading the maps costs start-up
// time, so they are on where stacks are shown: AGENT_DEBUG_STACK=1 (or run
// `node --enable-source-maps bin/agent.js`).
if (process.env.AGENT_DEBUG_STACK) process.setSourceMapsEnabled(true);
// V8's compile cache (Node 22.1+): the bundle's code compiled by an earlier start is reused, in
// the agent's cache folder ($XDG_CACHE_HOME/agent/compile, else ~/.cache/agent/compile), never the
// project. Node 20 has no such cache: nothing to do. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
const { enableCompileCache } = require('node:module');
if (typeof enableCompileCache === 'function') {
  const home = process.env.HOME || require('node:os').homedir();
  const cacheHome = process.env.XDG_CACHE_HOME?.startsWith('/') ? process.env.XDG_CACHE_HOME : join(home, '.cache');
  try {
    enableCompileCache(join(cacheHome, 'agent', 'compile'));
  } catch {
    // an unwritable cache folder only costs the compile time saved
  }
}
/** Calls `done` once what was written to `stream` is handed to the OS (writes to a pipe are asynchronous). */
function flushed(stream, done) {
  if (stream.destroyed || stream.writableEnded) return done();
  stream.write('', () => done());
}

import(pathToFileURL(entry).href)
  // the program's world is the process's own: its environment, cwd, streams, signals and exit
  .then(({ main, processWorld }) => main(process.argv, processWorld()))
  .then((code) => {
    process.exitCode = code;
    // The command is done and the database closed: leave now. Letting the event loop run dry
    // after a request kept the process alive 50-90 ms longer (Node's fetch tearing down its idle
    // keep-alive connection; measured with the provider in another process). Standard output
    // and error are flushed first.
    flushed(process.stdout, () => flushed(process.stderr, () => process.exit(code)));
  });
