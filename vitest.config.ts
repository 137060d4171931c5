import { availableParallelism } from 'node:os';
import { defineConfig, type Plugin } from 'vitest/config';

/** `import text from './x.md'` is the file's text, as esbuild's text loader makes it in the bundle (src/textModules.d.ts). */
const mdAsText: Plugin = {
  name: 'md-as-text',
  transform(code, id) {
    return id.endsWith('.md') ? { code: `export default ${JSON.stringify(code)};`, map: null } : undefined;
  },
};

export default defineConfig({
  plugins: [mdAsText],
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most of the suite's time is end-to-end tests waiting on the CLI processes they spawn and
    // on the fake server, not computing: vitest's default (cores - 1) ran the files one at a time
    // on a 2-core machine. Three files at once keep two cores busy.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    globalSetup: ['test/globalSetup.ts'],
  },
});
