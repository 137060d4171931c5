import { build, type Metafile, type Plugin } from 'esbuild';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

// Bundles src/ into dist/ with esbuild: one entry (src/cli.ts, commander only) and chunks that
// follow the import graph. Every `await import()` in src/ starts a chunk (print mode, the TUI,
// each SDK adapter, the tokenizer, ...), and code shared by several lands in shared chunks, so a
// path loads only what it runs, from a handful of files. No file list: new modules are picked
// up through their imports. Type checking stays with tsc (`npm run typecheck`).

const ROOT = resolve(import.meta.dirname, '..');
export const DIST = resolve(ROOT, 'dist');

/** Ink imports react-devtools-core only when DEV=true; it is not installed, so it resolves to a stub that says so. */
const devtoolsStub: Plugin = {
  name: 'react-devtools-core-stub',
  setup(b) {
    b.onResolve({ filter: /^react-devtools-core$/ }, () => ({ path: 'react-devtools-core', namespace: 'stub' }));
    b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
      contents: 'export default { initialize() {}, connectToDevTools() { process.stderr.write("agent: React devtools are not bundled\\n"); } };',
      loader: 'js',
    }));
  },
};

/**
 * Ink measures text with string-width (its own copy, 8, and wrap-ansi's 7). Both go through
 * src/ui/stringWidth.ts, which answers printable ASCII at once and asks string-width 8 for the
 * rest: the same widths, without segmenting every line that holds an icon into graphemes (the
 * reprint of a resumed 2,000-message transcript after its first frame spent ~190 ms there).
 */
const fastStringWidth: Plugin = {
  name: 'fast-string-width',
  setup(b) {
    b.onResolve({ filter: /^string-width$/ }, (args) => {
      if (!/[\\/]node_modules[\\/](ink|wrap-ansi|widest-line|cli-truncate)[\\/]/.test(args.importer)) return undefined;
      return { path: 'string-width', namespace: 'fast-string-width' };
    });
    b.onLoad({ filter: /.*/, namespace: 'fast-string-width' }, () => ({
      // the app's own measure (item-text.ts) is the same instance, so the two share what they cache
      contents: `export { terminalWidth as default } from ${JSON.stringify(resolve(ROOT, 'src', 'ui', 'stringWidth.ts'))};`,
      loader: 'ts',
      resolveDir: ROOT,
    }));
  },
};

/**
 * yoga-layout (Ink's layout engine) reads its WebAssembly from a base64 data: URL, through fetch()
 * whenever a global fetch exists. In Node that loads undici, ~20 ms of every first frame, to
 * decode a string. Its own synchronous decoder (atob) answers instead.
 */
const YOGA_FETCH_TEST = '"function"!=typeof fetch?Promise.resolve().then(function(){return wa()})';
const yogaWithoutFetch: Plugin = {
  name: 'yoga-without-fetch',
  setup(b) {
    b.onLoad({ filter: /[\\/]yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes(YOGA_FETCH_TEST))
        throw new Error(`${args.path}: its fetch test was not found; yoga-layout changed, update yogaWithoutFetch in scripts/build.ts`);
      return { contents: source.replace(YOGA_FETCH_TEST, '!0?Promise.resolve().then(function(){return wa()})'), loader: 'js' };
    });
  },
};

/**
 * Ink's ANSI tokenizer, slice-ansi and string-width each made an Intl.Segmenter when their module
 * loaded: the process's first Intl object, which loads ICU's data (~16 ms of every first frame).
 * They get src/ui/graphemes.ts's segmenter instead, which segments a string whose characters can
 * join no neighbour without ICU and makes the Intl.Segmenter on first need. string-width's
 * `/^\p{RGI_Emoji}$/v` (which esbuild writes as `new RegExp(…, "v")` for Node 20) built ICU's
 * emoji sequence set at load, another ~16 ms; it is made at its first test instead, when a
 * grapheme that is not simple is measured (src/ui/stringWidth.ts measures the simple ones itself).
 */
const GRAPHEME_SEGMENTER = /new Intl\.Segmenter\((?:undefined,\s*\{\s*granularity:\s*["']grapheme["']\s*\})?\)/g;
const RGI_EMOJI = 'const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;';
const lazyGraphemes: Plugin = {
  name: 'lazy-graphemes',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/](@alcalzone[\\/]ansi-tokenize|slice-ansi|string-width)[\\/].*\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('Intl.Segmenter')) return undefined;
      let patched = source.replace(GRAPHEME_SEGMENTER, '__agentGraphemes');
      if (patched.includes('Intl.Segmenter'))
        throw new Error(`${args.path}: an Intl.Segmenter that is not a plain grapheme one; update lazyGraphemes in scripts/build.ts`);
      if (patched.includes('RGI_Emoji')) {
        if (!patched.includes(RGI_EMOJI)) throw new Error(`${args.path}: its RGI_Emoji pattern changed; update lazyGraphemes in scripts/build.ts`);
        patched = patched.replace(
          RGI_EMOJI,
          () => "let __agentRgi;\nconst rgiEmojiRegex = { test: (s) => (__agentRgi ??= new RegExp('^\\\\p{RGI_Emoji}$', 'v')).test(s) };",
        );
      }
      const from = JSON.stringify(resolve(ROOT, 'src', 'ui', 'graphemes.ts'));
      return { contents: `import { graphemeSegmenter as __agentGraphemes } from ${from};\n${patched}`, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

/** The highlighter's calls that read its languages: the first of them registers them all. */
const HLJS_READERS = ['highlight', 'highlightAuto', 'highlightAll', 'highlightElement', 'getLanguage', 'listLanguages', 'autoDetection'];

/**
 * The Markdown renderer loads after the first frame, and a resumed session's older items wait for
 * it; loading it took ~150 ms, a third of that highlight.js registering its 191 languages and
 * another ~14 ms node-emoji's table (marked-terminal imports it for `emoji: true`, which
 * ui/markdown.ts never sets). highlight.js's index registers its languages at the first call that
 * reads them (each language module is bundled to run when first required), and marked-terminal
 * gets a node-emoji that knows no emoji. Both fail the build loudly if the packages change shape.
 */
const lazyHighlight: Plugin = {
  name: 'lazy-highlight',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]highlight\.js[\\/]lib[\\/]index\.js$/ }, (args) => {
      const lines = readFileSync(args.path, 'utf8').split('\n');
      const registers = lines.filter((l) => l.startsWith('hljs.registerLanguage('));
      const rest = lines.filter((l) => l.trim() !== '' && !l.startsWith('hljs.registerLanguage('));
      if (registers.length < 100 || rest.join('\n') !== "var hljs = require('./core');\nmodule.exports = hljs;")
        throw new Error(`${args.path}: not the index of languages lazyHighlight expects; update it in scripts/build.ts`);
      const contents = [
        "var hljs = require('./core');",
        'var registered = false;',
        `function registerAll() {\n  if (registered) return;\n  registered = true;\n  ${registers.join('\n  ')}\n}`,
        `for (const name of ${JSON.stringify(HLJS_READERS)}) {`,
        '  const read = hljs[name];',
        "  if (typeof read !== 'function') throw new Error(`highlight.js has no ${name}: update lazyHighlight in scripts/build.ts`);",
        '  hljs[name] = function (...args) { registerAll(); return read.apply(this, args); };',
        '}',
        'module.exports = hljs;',
      ].join('\n');
      return { contents, loader: 'js', resolveDir: dirname(args.path) };
    });
    b.onResolve({ filter: /^node-emoji$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]marked-terminal[\\/]/.test(args.importer)) return undefined;
      return { path: 'node-emoji', namespace: 'no-emoji' };
    });
    b.onLoad({ filter: /.*/, namespace: 'no-emoji' }, () => ({ contents: 'export const get = () => undefined;', loader: 'js' }));
  },
};

/**
 * gpt-tokenizer's o200k ranks are a 200,000-element array literal: parsing it took ~225 ms of
 * every process that counts exactly (a resumed session near a threshold, compaction). The
 * same array is bundled as one string split on a character no token holds (~110 ms), with the
 * 1,571 ranks that are byte arrays set after; the build checks the result equals the original.
 */
const tokenRanksAsString: Plugin = {
  name: 'token-ranks-as-string',
  setup(b) {
    b.onLoad({ filter: /[\\/]gpt-tokenizer[\\/](?:esm|cjs)[\\/]bpeRanks[\\/]o200k_base\.js$/ }, async (args) => {
      const ranks = ((await import(pathToFileURL(args.path).href)) as { default: (string | number[])[] }).default;
      const sep = ['\uffff', '\ufffe', '\u0001'].find((c) => ranks.every((r) => typeof r !== 'string' || !r.includes(c)));
      if (sep === undefined) throw new Error(`${args.path}: every separator occurs in a token; update tokenRanksAsString in scripts/build.ts`);
      const joined = ranks.map((r) => (typeof r === 'string' ? r : '')).join(sep);
      const bytes = Object.fromEntries(ranks.flatMap((r, i) => (typeof r === 'string' ? [] : [[i, r]])));
      const rebuilt: (string | number[])[] = joined.split(sep);
      for (const [i, r] of Object.entries(bytes)) rebuilt[Number(i)] = r;
      if (JSON.stringify(rebuilt) !== JSON.stringify(ranks)) throw new Error(`${args.path}: the ranks rebuilt from one string differ from the original`);
      const contents = [
        `const ranks = ${JSON.stringify(joined)}.split(${JSON.stringify(sep)});`,
        `const bytes = JSON.parse(${JSON.stringify(JSON.stringify(bytes))});`,
        'for (const i in bytes) ranks[i] = bytes[i];',
        'export default ranks;',
      ].join('\n');
      return { contents, loader: 'js' };
    });
  },
};

/**
 * The SDKs (@anthropic-ai/sdk, openai) name the globals Headers and FormData on every request
 * (`new Headers()` to merge headers, `body instanceof FormData`), and in Node those load undici
 * (~20 ms to compile; the fetch they are given is node:http's). Each SDK file that names one of
 * Headers, FormData, Response or Request imports it from src/llm/sdkGlobals.ts instead, which
 * reaches undici only when an upload or a caller's own object really needs it.
 */
const SDK_GLOBALS = ['Headers', 'FormData', 'Response', 'Request'];
const sdkGlobals: Plugin = {
  name: 'sdk-globals',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/](@anthropic-ai[\\/]sdk|openai)[\\/].*\.m?js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const named = SDK_GLOBALS.filter((g) => new RegExp(`(?:new|instanceof)\\s+${g}\\b`).test(source));
      if (named.length === 0) return undefined;
      const from = JSON.stringify(resolve(ROOT, 'src', 'llm', 'sdkGlobals.ts'));
      return { contents: `import { ${named.join(', ')} } from ${from};\n${source}`, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

export async function buildDist(opts: { quiet?: boolean } = {}): Promise<Metafile> {
  rmSync(DIST, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { cli: 'src/cli.ts' },
    outdir: DIST,
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // native addon: loaded from node_modules at run time
    // @vscode/ripgrep finds its platform package's binary from its own location: it must stay in node_modules
    // sharp loads its libvips binary (@img/sharp-<platform>) from beside itself
    // the sandbox library finds its vendored helpers (apply-seccomp, the JVM proxy agent) beside itself, and loads only when enabled
    external: ['better-sqlite3', '@vscode/ripgrep', 'sharp', '@anthropic-ai/sandbox-runtime'],
    // jsonc-parser's "main" is a UMD build whose dynamic require()s esbuild cannot follow: bundle its ESM build
    alias: { 'jsonc-parser': './node_modules/jsonc-parser/lib/esm/main.js' },
    plugins: [devtoolsStub, fastStringWidth, yogaWithoutFetch, lazyGraphemes, lazyHighlight, tokenRanksAsString, sdkGlobals],
    // model-facing prose (src/**/*.md: prompts, tool descriptions) is bundled as a string
    loader: { '.md': 'text' },
    // bundled CommonJS packages call require() for node built-ins; ESM has no require of its own
    banner: { js: "import { createRequire as __agentCreateRequire } from 'node:module';\nconst require = __agentCreateRequire(import.meta.url);" },
    define: { 'process.env.NODE_ENV': '"production"' },
    // stack traces map back to src/ (bin/agent.js turns source maps on); the sources are in the
    // checkout, so the maps need not carry them
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    legalComments: 'none',
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: opts.quiet ? 'error' : 'warning',
  });
  // which chunk holds which modules: tests use it to check what each path loads
  writeFileSync(resolve(DIST, 'meta.json'), JSON.stringify(result.metafile));
  return result.metafile;
}

/**
 * The package.json a tarball holds: the checkout's without its scripts. Every one of them points at
 * files the package does not ship (scripts/, test/, bench/, biome), and an installer that sees a
 * `prepare` asks the person to allow a script that cannot work (npm 11+: "has install scripts not
 * yet covered by allowScripts").
 */
export function publishedManifest(checkout: Record<string, unknown>): Record<string, unknown> {
  const published = { ...checkout };
  delete published.scripts;
  return published;
}

const PACKAGE_JSON = resolve(ROOT, 'package.json');
/** The checkout's package.json while a pack runs (prepack moves it here, postpack moves it back). */
const CHECKOUT_PACKAGE_JSON = resolve(ROOT, 'package.json.checkout');

/** A pack that died between prepack and postpack left the publish-time package.json in place: the checkout's comes back. */
function restoreCheckoutManifest(): boolean {
  if (!existsSync(CHECKOUT_PACKAGE_JSON)) return false;
  renameSync(CHECKOUT_PACKAGE_JSON, PACKAGE_JSON);
  return true;
}

const event = process.env.npm_lifecycle_event;
const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;

if (isMain && event === 'prepublishOnly') {
  // npm publish of this directory re-reads package.json after postpack put the checkout's back,
  // and sends that one (every dev script) to the registry as the version's manifest; a tarball's
  // manifest is its own package.json, the published one
  console.error(
    `npm publish of the checkout would send its package.json with the dev scripts to the registry. Publish the packed tarball instead:\n  npm pack && npm publish ${String(process.env.npm_package_name).replace(/^@/, '').replace('/', '-')}-${process.env.npm_package_version}.tgz`,
  );
  process.exit(1);
} else if (isMain && event === 'postpack') {
  // npm read the checkout's manifest before prepack, so it runs this from the checkout's scripts
  if (restoreCheckoutManifest()) console.log("package.json: the checkout's is back");
} else if (isMain && event === 'prepare' && (process.env.npm_command === 'pack' || process.env.npm_command === 'publish')) {
  // a pack runs prepack, then prepare when its package.json has one (an npm that reads it once): prepack built dist/
  console.log('dist/ was built by prepack');
} else if (isMain) {
  restoreCheckoutManifest();
  const t0 = performance.now();
  const meta = await buildDist();
  const outputs = Object.entries(meta.outputs).filter(([f]) => f.endsWith('.js'));
  const kb = outputs.reduce((n, [, o]) => n + o.bytes, 0) / 1024;
  console.log(`built dist/: ${outputs.length} files, ${kb.toFixed(0)} KiB in ${(performance.now() - t0).toFixed(0)} ms`);
  if (event === 'prepack') {
    // the tarball is made after prepack, from package.json as it is on disk: the published one
    // goes there now, and postpack puts the checkout's back (pacote re-reads it, so the pack's
    // own `prepare` sees no script and does not build twice)
    const text = readFileSync(PACKAGE_JSON, 'utf8');
    writeFileSync(CHECKOUT_PACKAGE_JSON, text);
    writeFileSync(PACKAGE_JSON, `${JSON.stringify(publishedManifest(JSON.parse(text) as Record<string, unknown>), null, 2)}\n`);
    console.log('package.json: the published one (no scripts) until postpack');
  }
}
