import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import fg from 'fast-glob';
import { defineConfig, type Plugin } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** `import text from './x.md'` is the file's text, as esbuild's text loader makes it in the bundle (src/textModules.d.ts). */
const mdAsText: Plugin = {
  name: 'md-as-text',
  transform(code, id) {
    return id.endsWith('.md') ? { code: `export default ${JSON.stringify(code)};`, map: null } : undefined;
  },
};

/**
 * The files that take longest, longest first (a clean clone's run on the quiet 2-core machine,
 * CI log of c997189 and later: compaction-background 243 s, crash 94 s, caching 76 s, the rest
 * 20-36 s): they start first, in every project, so that none of them starts last and runs alone
 * while the other workers have nothing left. On a clean clone vitest knows no durations and
 * orders by file size, which says little here (compaction.test.ts is 44 lines of shared cases).
 */
const SLOW_FIRST = [
  'e2e/compaction-background',
  'e2e/crash',
  'e2e/caching',
  'e2e/compaction-openai',
  'e2e/tui',
  'e2e/compaction',
  'e2e/lease',
  'e2e/ledger',
  'e2e/print',
  'e2e/responses',
  'e2e/tui-subagents',
  'e2e/thinking',
  'e2e/mcp',
  'mcp/manager',
  'e2e/plan',
  'e2e/images-compaction',
  'e2e/uncompact',
  'e2e/signals',
  'e2e/sandbox',
  'sandbox/runtime',
  'e2e/edit',
  'e2e/recall',
  'history/properties',
].map((name) => `test/${name}.test.ts`);

/** The files among `files` with a line `marker` matches: how a test file opts into a project. */
const filesMarked = (files: string[], marker: RegExp): string[] => files.filter((file) => marker.test(readFileSync(file, 'utf8')));

const E2E_FILES = fg.sync(['test/e2e/**/*.test.ts']);

/**
 * Unit files that need the modules they test fresh run isolated (project unit-fresh); the other
 * unit files share their worker's modules, as the e2e files do, which halves the unit files' CPU.
 * A file says so with a line starting `// Fresh modules:` (the tokenizer and the Markdown
 * renderer load once, on first use, which such files watch happen); a file that forces colour
 * (test/ui/force-color.ts, force-truecolor.ts) needs it too, as chalk (in Ink) fixes its colour
 * level when first imported.
 */
const FRESH_MODULES = filesMarked(
  fg.sync(['test/**/*.test.ts', 'test/**/*.test.tsx'], { ignore: ['test/e2e/**'] }),
  /^\/\/ Fresh modules:|^import '\.\/force-(?:true)?color\.js';/m,
);

/**
 * The end-to-end files whose behaviour depends on the Anthropic model family (thinking, caching,
 * compaction over thinking turns, the request bytes): they run in the second regime too
 * (project e2e-4-5); the others run once. A file opts in with a line starting `// Both regimes:`
 * that says why (CONTRIBUTING.md, "Tests").
 */
const BOTH_REGIMES = filesMarked(E2E_FILES, /^\/\/ Both regimes:/m);

/**
 * End-to-end files that need their own modules (project e2e-fresh, isolated): a line starting
 * `// Fresh modules:` says why. tui-paste's large-paste test hung a full run three times (its first
 * turn never ended, "Thinking…" after the answer) and passes alone every time: what the worker's
 * earlier files leave in the shared modules is the suspect, not yet found (docs/build.md).
 */
const E2E_FRESH = filesMarked(E2E_FILES, /^\/\/ Fresh modules:/m);

/**
 * What both unit projects share: the setup file that removes, when a test file ends, the temporary
 * folders it made with tempDir() (test/tempDirs.ts).
 */
const UNIT = { setupFiles: ['test/cpuSetup.ts', 'test/tempDirsSetup.ts'] };

/**
 * What both end-to-end projects (one per regime) share; see the projects' comment below. An
 * end-to-end test may take 60 s by default: several take 15-17 s in a clean run of the whole
 * suite here (a dozen agents started one after another), and twice that on a busier machine.
 * What a test waits for has its own, shorter bound that fails with a message (runAgent 20 s per
 * run, Tmux.waitFor 15 s per screen).
 */
const END_TO_END = {
  include: ['test/e2e/**/*.test.ts'],
  // the bundle they run (bin/agent.js → dist/), built once per run; the unit files need none, so a
  // run of unit files alone (the store tests under Node 24 in the install test) builds nothing
  globalSetup: ['test/globalSetup.ts'],
  setupFiles: ['test/cpuSetup.ts', 'test/e2e/testSetup.ts'],
  isolate: false,
  retry: 0,
  testTimeout: 60_000,
  // the app as it ships: the bundle defines NODE_ENV as production, so Ink runs React's production
  // build; vitest's 'test' would load React's development build, which checks and records more on
  // every render (the in-process TUI files spent ~15% of their CPU in React with it)
  env: { NODE_ENV: 'production' },
};

/** JSX compiled as the bundle compiles it (jsx(), not the development runtime's jsxDEV, which React's production build has not). */
const PRODUCTION_JSX = { jsx: { runtime: 'automatic' as const, development: false } };

class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification): number => {
      const i = SLOW_FIRST.findIndex((s) => f.moduleId.endsWith(s));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  plugins: [mdAsText],
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most of the suite's time is end-to-end tests waiting on the CLI processes they spawn and
    // on the fake server, not computing: vitest's default (cores - 1) ran the files one at a time
    // on a 2-core machine; three at once used 1.4 of its 2 cores.
    maxWorkers: Math.max(4, availableParallelism()),
    reporters: ['default', './test/endOfRunReporter.ts'],
    sequence: { sequencer: SlowFirst },
    // Two regimes in one pool, so that neither waits for the other's last file: every test on
    // claude-sonnet-5-5 (adaptive thinking), and the end-to-end files whose behaviour depends on
    // the model family (BOTH_REGIMES) again on claude-sonnet-4-5 with thinking enabled
    // (test/e2e/regime.ts: in them, the tests that regime would not change run once).
    // `--project e2e` or `--project e2e-4-5` runs the end-to-end files in one of them.
    // The end-to-end files share their worker's modules (the fake server, the tokenizer it
    // counts with, the harness): each file starts its own server and workspaces, and no file
    // mocks a module or changes the process. No test is retried: a test that fails under load
    // waits for a time instead of a state, which is a defect to fix at its cause. The run ends
    // with the failed tests and the ones near their limit (test/endOfRunReporter.ts).
    projects: [
      {
        extends: true,
        test: { name: 'unit', ...UNIT, include: ['test/**/*.test.ts', 'test/**/*.test.tsx'], exclude: ['test/e2e/**', ...FRESH_MODULES], isolate: false },
      },
      { extends: true, test: { name: 'unit-fresh', ...UNIT, include: FRESH_MODULES } },
      { extends: true, oxc: PRODUCTION_JSX, test: { name: 'e2e', ...END_TO_END, exclude: E2E_FRESH } },
      { extends: true, oxc: PRODUCTION_JSX, test: { name: 'e2e-fresh', ...END_TO_END, include: E2E_FRESH, isolate: true } },
      {
        extends: true,
        oxc: PRODUCTION_JSX,
        test: { name: 'e2e-4-5', ...END_TO_END, include: BOTH_REGIMES, env: { ...END_TO_END.env, AGENT_E2E_ANTHROPIC_MODEL: 'claude-sonnet-4-5' } },
      },
    ],
  },
});
