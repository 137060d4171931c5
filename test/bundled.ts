import { chmodSync, mkdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { tempDir } from './tempDirs.js';

// A TypeScript file of the tree as one plain ES module, for a test's child process: `node
// <bundle>` starts in about a tenth of a CPU-second, where `node --import tsx <file>` spends
// 0.6-0.9 compiling the file and what it imports on every start (docs/build.md, issue 50). The
// bundle is written to a temporary folder (removed after the test file), but finds what the file
// would where it is: packages are not bundled but imported from their files in the tree's
// node_modules, and import.meta.url is the entry file's in every bundled module (a module that
// looks for a package or the checkout from its own location, as src/store/sqlite.ts does, finds
// the same ones; one that reads a file beside itself would not, and is no candidate).

const PACKAGE = /^[^./]/;
const builtins = new Set(builtinModules);

/** Packages stay out of the bundle, each imported by the absolute path the tree resolves it to. */
const packagesInPlace: Plugin = {
  name: 'packages-in-place',
  setup(b) {
    b.onResolve({ filter: PACKAGE }, async (args) => {
      if (args.pluginData === 'in-place' || args.path.startsWith('node:') || builtins.has(args.path)) return undefined;
      const found = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'in-place' });
      if (found.errors.length > 0) return { errors: found.errors };
      return { path: found.path, external: true };
    });
  },
};

/**
 * Bundles `entry` (an absolute path) into `<temp folder>/<its folder's name>/<name>.mjs` (a script
 * that knows itself by its path, as test/fake-server/main.ts does, still does), readable by any
 * user (a child may run as another); resolves with the bundle's path. What the file imports on
 * demand stays on demand (a chunk beside it), as in dist/.
 */
export async function bundled(entry: string): Promise<string> {
  const dir = join(tempDir('bundled-'), basename(dirname(entry)));
  mkdirSync(dir, { recursive: true });
  for (const folder of [dirname(dir), dir]) chmodSync(folder, 0o755);
  const name = basename(entry).replace(/\.[cm]?tsx?$/, '');
  await build({
    entryPoints: { [name]: entry },
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    plugins: [packagesInPlace],
    define: { 'import.meta.url': JSON.stringify(pathToFileURL(entry).href) },
    loader: { '.md': 'text' },
    logLevel: 'error',
  });
  return join(dir, `${name}.mjs`);
}
