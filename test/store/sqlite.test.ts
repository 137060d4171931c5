import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import {
  classifyLoadError,
  driverCandidates,
  explainLoadFailure,
  FROM_SOURCE,
  nodeMajor,
  PREBUILT,
  probeSqlite,
  sqlite,
  type LoadFailure,
} from '../../src/store/sqlite.js';
import { tempDir } from './helpers.js';

// Which SQLite binding loads, and that the store behaves the same on it. These tests run on the
// machine's Node 20 (better-sqlite3 12) in `npm test`, and under Node 24 (better-sqlite3 13,
// prebuilt) in the install test (scripts/install-test.ts), like the rest of test/store.

describe('the SQLite binding', () => {
  it('is better-sqlite3 13 (prebuilt) on Node >= 22 and 12 on Node 20, decided by the major version', () => {
    // swapping the order, or trying 13 on Node 20 (where it crashes the process), fails this test
    expect(driverCandidates(20)).toEqual([FROM_SOURCE]);
    expect(driverCandidates(21)).toEqual([FROM_SOURCE]);
    expect(driverCandidates(22)).toEqual([PREBUILT, FROM_SOURCE]);
    expect(driverCandidates(24)).toEqual([PREBUILT, FROM_SOURCE]);
    expect(nodeMajor('24.21.0')).toBe(24);
  });

  it('that this process loaded is the first candidate of its Node version', () => {
    // under Node 24 without better-sqlite3 13 reachable the store would run on 12: this fails then
    expect(sqlite().package).toBe(driverCandidates(nodeMajor())[0]);
    expect(sqlite().version.split('.')[0]).toBe(sqlite().package === PREBUILT ? '13' : '12');
  });

  it('gives the store the same database on either: WAL journaling, FTS5 with bm25', () => {
    const { dir, cleanup } = tempDir();
    const store = openStore(join(dir, 'agent.db'));
    store.close();
    const db = new (sqlite().Database)(join(dir, 'agent.db'));
    try {
      // open.ts sets these; a binding compiled without FTS5 or a pragma left at its default fails here
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('compile_options', { simple: false })).toContainEqual({ compile_options: 'ENABLE_FTS5' });
    } finally {
      db.close();
    }
    const probe = probeSqlite(dir);
    expect(probe).toMatchObject({ package: sqlite().package, fts5: true, wal: true });
    expect(probe.sqliteVersion).toMatch(/^3\.\d+\.\d+$/);
    cleanup();
  });
});

describe('a binding that does not load', () => {
  const err = (message: string, code?: string): Error => Object.assign(new Error(message), code ? { code } : {});

  it('is sorted by what the person can do about it', () => {
    // each kind picks its own sentence: merging two kinds fails one of these
    expect(classifyLoadError(PREBUILT, err("Cannot find module 'better-sqlite3-13'\nRequire stack:\n- /x", 'MODULE_NOT_FOUND')).kind).toBe('missing');
    expect(classifyLoadError(PREBUILT, err("Cannot find module '/p/better-sqlite3-13/build/Release/better_sqlite3.node'", 'MODULE_NOT_FOUND')).kind).toBe(
      'no-binary',
    );
    expect(classifyLoadError(FROM_SOURCE, err('Could not locate the bindings file. Tried:\n → /p/build/better_sqlite3.node')).kind).toBe('unbuilt');
    const abi = classifyLoadError(
      FROM_SOURCE,
      err(
        "The module '/p/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\nNODE_MODULE_VERSION 137.",
      ),
    );
    expect(abi).toEqual({ package: FROM_SOURCE, kind: 'wrong-node', detail: 'built for NODE_MODULE_VERSION 115, this Node.js needs 137' });
    expect(classifyLoadError(FROM_SOURCE, err("Cannot find module 'bindings'", 'MODULE_NOT_FOUND'))).toMatchObject({ kind: 'other' });
  });

  const ctx = { platform: 'linux-x64', name: '@longhaul/agent' };
  const unbuilt: LoadFailure = { package: FROM_SOURCE, kind: 'unbuilt', detail: 'Could not locate the bindings file.' };
  const missing13: LoadFailure = { package: PREBUILT, kind: 'missing', detail: "Cannot find module 'better-sqlite3-13'" };

  it('is explained in one paragraph with the command to run: on Node >= 22, reinstall, else allow the build', () => {
    const text = explainLoadFailure([missing13, unbuilt], { ...ctx, major: 24 });
    expect(text).not.toContain('\n');
    expect(text).toContain('better-sqlite3 13 (prebuilt) is not installed; better-sqlite3 12 (built from source) is installed but was never built');
    expect(text).toContain('`npm install -g @longhaul/agent`');
    expect(text).toContain('`npm install -g @longhaul/agent --allow-scripts=better-sqlite3`');
  });

  it('on Node 20 names the toolchain the build needs, and Node 22 as the way around it', () => {
    const text = explainLoadFailure([unbuilt], { ...ctx, major: 20 });
    expect(text).not.toContain('\n');
    expect(text).toContain('gcc, make and python3');
    expect(text).toContain('`npm install -g @longhaul/agent --foreground-scripts`');
    expect(text).toContain('Node.js 22 or later');
    expect(text).not.toContain('--allow-scripts');
  });

  it('a binary the loader cannot read is damaged: reinstall it, no toolchain, whatever the fallback', () => {
    // the loader's own words, from a real dlopen of a file that is no library
    const { dir } = tempDir();
    writeFileSync(join(dir, 'better_sqlite3.node'), 'not a library, cut short by a download');
    let thrown: unknown;
    try {
      createRequire(import.meta.url)(join(dir, 'better_sqlite3.node'));
    } catch (e) {
      thrown = e;
    }
    const damaged = classifyLoadError(PREBUILT, thrown);
    expect(damaged.kind).toBe('damaged');
    for (const major of [24, 20]) {
      const first: LoadFailure = { ...damaged, package: major >= 22 ? PREBUILT : FROM_SOURCE };
      const text = explainLoadFailure(major >= 22 ? [first, unbuilt] : [first], { ...ctx, major });
      expect(text).toContain('has a damaged binary (');
      expect(text).toContain('reinstall with `npm install -g @longhaul/agent');
      expect(text).not.toContain('toolchain');
      // the CLI puts "agent: " before it: the message does not say "agent" again
      expect(text).toMatch(/^SQLite's native module did not load on Node\.js \d+ \(linux-x64\)/);
    }
    // Node 22, the first with the prebuilt binary: fetched again, not built
    const at22 = explainLoadFailure([{ ...damaged, package: PREBUILT }, unbuilt], { ...ctx, major: 22 });
    expect(at22).toContain('`npm install -g @longhaul/agent`, which fetches it again');
    expect(at22).not.toContain('--foreground-scripts');
    // a damaged fallback behind a missing first choice is the first choice's problem
    expect(explainLoadFailure([missing13, { ...damaged, package: FROM_SOURCE }], { ...ctx, major: 24 })).toContain('--allow-scripts');
  });

  it('in a clone says to run npm install there instead of a global install', () => {
    const text = explainLoadFailure([unbuilt], { ...ctx, major: 20, checkout: '/src/agent' });
    expect(text).toContain('In this clone (/src/agent) run `npm install` again');
    expect(text).not.toContain('npm install -g');
    // from Node 22 the clone's install brings the prebuilt binary: no toolchain
    expect(explainLoadFailure([unbuilt], { ...ctx, major: 22, checkout: '/src/agent' })).not.toContain('compiles from source');
  });
});
// Mutations checked (a damaged binary): dropping the `damaged` kind's test in classifyLoadError, or its
// branch in explainLoadFailure, fails the damaged case (it is 'other', told to install a toolchain).
