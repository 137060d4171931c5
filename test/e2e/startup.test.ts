import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, useFakeServer, workspace, type RunResult } from './harness.js';

// Start-up stays light: the paths that do not need ink, the SDKs, the tokenizer or SQLite
// must not load them. A module-resolve hook in the child lists every file it loads: packages
// outside the bundle (better-sqlite3) directly, and the bundle's chunks through the build's
// metafile, which names the packages each chunk holds. The hook runs on Node's hooks thread and
// writes synchronously: an asynchronous write from there could be lost when the CLI exits right
// after its last import.

const ROOT = resolve(__dirname, '..', '..');

interface DistMeta {
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }>; imports?: Array<{ path: string }> }>;
}

/** dist/meta.json: the sources each output file of the build holds, and what it imports. */
const distMeta = (): DistMeta => JSON.parse(readFileSync(join(ROOT, 'dist', 'meta.json'), 'utf8')) as DistMeta;

/** The bundle's JavaScript files that hold a source whose path (relative to the checkout) contains `part`. */
function chunksHolding(part: string): string[] {
  const { outputs } = distMeta();
  return Object.keys(outputs).filter((f) => f.endsWith('.js') && Object.keys(outputs[f]!.inputs).some((i) => i.includes(part)));
}

/** The packages bundled into each output file of dist/, by its path relative to the checkout. */
function packagesByChunk(): Map<string, Set<string>> {
  const meta = distMeta();
  const byChunk = new Map<string, Set<string>>();
  for (const [file, out] of Object.entries(meta.outputs)) byChunk.set(file, new Set(Object.keys(out.inputs).flatMap((i) => packageOf(i) ?? [])));
  return byChunk;
}

function packageOf(path: string): string | undefined {
  return /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1];
}

const HEAVY = ['ink', 'react', '@anthropic-ai/sdk', 'openai', 'gpt-tokenizer', 'better-sqlite3', 'marked', 'zod'];

interface Loaded {
  packages: Set<string>;
  /** Files loaded from node_modules outside the bundle (relative to the checkout). */
  unbundled: string[];
  /** Every file loaded, relative to the checkout. */
  loaded: string[];
  /** Node's own modules the process loaded (process.moduleLoadList at exit). */
  builtins: string[];
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs node with these arguments (asynchronously: the fake server in this process must answer). */
function runNode(args: string[], env: NodeJS.ProcessEnv = process.env, cwd?: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'], ...(cwd ? { cwd } : {}) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

/** Runs the CLI with the hook (asynchronously: the fake server in this process must answer). */
async function packagesLoaded(args: string[], env: NodeJS.ProcessEnv = process.env, cwd?: string): Promise<Loaded> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-startup-'));
  const hook = join(dir, 'hook.mjs');
  writeFileSync(
    hook,
    `import Module, { register } from 'node:module';
import { writeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
// require() (how src/store/sqlite.ts loads the SQLite binding) passes no ESM hook: its resolver is wrapped too
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (...args) {
  const file = resolveFilename.apply(this, args);
  if (file.startsWith('/')) writeSync(2, 'LOAD ' + pathToFileURL(file).href + '\\n');
  return file;
};
process.on('exit', () => writeSync(2, 'BUILTINS ' + JSON.stringify(process.moduleLoadList.filter((m) => m.startsWith('NativeModule '))) + '\\n'));
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(
      "import { writeSync } from 'node:fs'; export async function resolve(s, c, n) { const r = await n(s, c); if (r.url.startsWith('file:')) writeSync(2, 'LOAD ' + r.url + '\\n'); return r; }",
    )}));
`,
  );
  const r = await runNode(['--import', hook, AGENT_BIN, ...args], env, cwd).finally(() => rmSync(dir, { recursive: true, force: true }));
  const byChunk = packagesByChunk();
  const packages = new Set<string>();
  const unbundled: string[] = [];
  const loaded: string[] = [];
  let builtins: string[] = [];
  for (const line of r.stderr.split('\n')) {
    if (line.startsWith('BUILTINS ')) builtins = (JSON.parse(line.slice(9)) as string[]).map((m) => m.slice('NativeModule '.length));
    if (!line.startsWith('LOAD ')) continue;
    const file = relative(ROOT, fileURLToPath(line.slice(5)));
    loaded.push(file);
    const direct = packageOf(file);
    if (direct) {
      packages.add(direct);
      unbundled.push(file);
    } else for (const p of byChunk.get(file) ?? []) packages.add(p);
  }
  return {
    packages,
    unbundled,
    loaded,
    builtins,
    status: r.status,
    stdout: r.stdout,
    stderr: r.stderr
      .split('\n')
      .filter((l) => !l.startsWith('LOAD ') && !l.startsWith('BUILTINS '))
      .join('\n'),
  };
}

const server = useFakeServer();

describe('start-up', () => {
  it('--version loads nothing: the launcher answers it', async () => {
    const r = await packagesLoaded(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    expect([...r.packages]).toEqual([]);
    expect(r.loaded.filter((f) => f !== 'bin/agent.js')).toEqual([]);
  });

  it('--version among other arguments goes through commander alone, with the same answer', async () => {
    const r = await packagesLoaded(['--model', 'x', '--version']);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    expect([...r.packages]).toEqual(['commander']);
  });

  it('--help loads commander only', async () => {
    const r = await packagesLoaded(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: agent');
    expect([...r.packages]).toEqual(['commander']);
  });

  it('`agent sessions` loads the store but neither ink, the SDKs nor the tokenizer', async () => {
    const ws = workspace();
    const r = await packagesLoaded(['sessions'], { ...process.env, HOME: ws.home, AGENT_DB: ws.db }, ws.dir);
    expect(r.status, r.stderr).toBe(0);
    expect(r.packages.has('better-sqlite3') || r.packages.has('better-sqlite3-13')).toBe(true);
    for (const heavy of ['ink', 'react', '@anthropic-ai/sdk', 'openai', 'gpt-tokenizer']) expect(r.packages.has(heavy), heavy).toBe(false);
  });

  it('a configuration error is reported before any heavy module loads', async () => {
    const ws = workspace({ compaction: { auto: 'yes' } });
    const r = await packagesLoaded(['-p', 'hi'], { ...process.env, HOME: ws.home, AGENT_DB: ws.db }, ws.dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('field "compaction.auto"');
    for (const heavy of HEAVY.filter((p) => p !== 'zod' && p !== 'better-sqlite3')) expect(r.packages.has(heavy), heavy).toBe(false);
  });

  it('a short `agent -p` round trip runs from the bundle and loads its SDK, but neither the TUI, the tokenizer, execa nor the HTML parsers', async () => {
    server.enqueue({ text: 'pong' });
    const ws = workspace();
    const r = await packagesLoaded(['-p', 'hi'], agentEnv({ ws, server }), ws.dir);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('pong');
    expect(r.packages.has('@anthropic-ai/sdk')).toBe(true);
    // WebFetch's linkedom, Readability and turndown (~950 KB) load on its first fetch (a static import of src/web/page.ts fails this)
    // fast-glob loads for a custom command folder that exists (none here)
    for (const heavy of ['ink', 'react', 'marked', 'gpt-tokenizer', 'execa', 'openai', 'yaml', 'linkedom', '@mozilla/readability', 'turndown', 'fast-glob'])
      expect(r.packages.has(heavy), heavy).toBe(false);
    // the SDK's Headers and FormData are src/llm/sdkGlobals.ts's, not undici's (~20 ms to compile)
    expect(r.builtins.length).toBeGreaterThan(0);
    expect(r.builtins.filter((m) => m.includes('undici'))).toEqual([]);
    // nothing but the native SQLite binding is loaded from node_modules: the rest is bundled.
    // better-sqlite3 12 finds its binary through bindings (and file-uri-to-path); 13 needs neither
    const sqlitePackages = Number(process.versions.node.split('.')[0]) >= 22 ? ['better-sqlite3-13'] : ['better-sqlite3', 'bindings', 'file-uri-to-path'];
    expect(new Set(r.unbundled.map(packageOf))).toEqual(new Set(sqlitePackages));
  });

  it("a `-p` round trip in the process's own world turns on no async hooks (Node 20 runs AsyncLocalStorage on them)", async () => {
    server.enqueue({ text: 'pong' });
    const ws = workspace();
    // the bundle's main in the process's world, as bin/agent.js runs it; then how many async hooks were made
    const script = [
      "const { getHookArrays } = require('internal/async_hooks');",
      `import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'cli.js')).href)})`,
      "  .then(({ main, processWorld }) => main([process.execPath, 'agent', '-p', 'hi'], processWorld()))",
      '  .then((code) => process.stderr.write(`\\nexit ${code} hooks ${getHookArrays()[0].length}\\n`));',
    ].join('\n');
    const r = await runNode(['--expose-internals', '-e', script], agentEnv({ ws, server }), ws.dir);
    expect(r.stdout.trim()).toBe('pong');
    // Node's own count of the hooks created (AsyncLocalStorage.run makes one on Node 20 and 22)
    expect(r.stderr.trim().split('\n').at(-1)).toBe('exit 0 hooks 0');
  });

  it('bundles zod as zod/mini, only what the schemas use, with English messages alone', () => {
    // every -p compiles the chunk that validates .agentrc: classic zod was ~290 KB of it
    const meta = distMeta();
    // the MCP and ACP SDKs' chunks bring classic zod of their own (a chunk they share, imported by
    // them alone): it loads only when MCP servers are configured or for `agent acp`
    const sdk = (o: string): boolean =>
      Object.keys(meta.outputs[o]!.inputs).some((i) => i.includes('node_modules/@modelcontextprotocol/') || i.includes('node_modules/@agentclientprotocol/'));
    const importers = (o: string): string[] => Object.keys(meta.outputs).filter((k) => meta.outputs[k]!.imports?.some((i) => i.path === o));
    const onlySdk = (o: string): boolean => sdk(o) || (importers(o).length > 0 && importers(o).every(sdk));
    const ours = Object.keys(meta.outputs)
      .filter((o) => !onlySdk(o))
      .map((o) => meta.outputs[o]!);
    const zodFiles = ours.flatMap((o) =>
      Object.entries(o.inputs)
        .filter(([i, v]) => i.includes('node_modules/zod/') && v.bytesInOutput > 0)
        .map(([i]) => i),
    );
    expect(zodFiles).toContain('node_modules/zod/v4/mini/schemas.js');
    expect(zodFiles.filter((f) => f.includes('/zod/v4/classic/'))).toEqual([]);
    expect(zodFiles.filter((f) => f.includes('/locales/'))).toEqual(['node_modules/zod/v4/locales/en.js']);
    // zod's JIT compiler is not used by the schemas: a namespace object (`import { z }`) would drag it in
    expect(zodFiles.filter((f) => f.endsWith('/core/compile.js'))).toEqual([]);
  });

  it("the TUI's layout engine loads its WebAssembly without Node's fetch (undici stays unloaded)", async () => {
    const app = chunksHolding('node_modules/yoga-layout/')[0];
    expect(app).toBeDefined();
    const script = `import(${JSON.stringify(pathToFileURL(join(ROOT, app!)).href)}).then(() => console.log(JSON.stringify(process.moduleLoadList.filter((m) => m.includes('undici')))))`;
    const r = await runNode(['-e', script]);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim())).toEqual([]);
  });

  it("the TUI's terminal libraries load no ICU data (no Intl.Segmenter, no emoji set) until a string needs it", async () => {
    const chunks = [...new Set(['@alcalzone/ansi-tokenize', 'slice-ansi', 'string-width'].flatMap((pkg) => chunksHolding(`node_modules/${pkg}/`)))];
    expect(chunks.length).toBeGreaterThan(0);
    // scripts/build.ts's lazyGraphemes: the only segmenter left in the bundle is src/ui/graphemes.ts's
    const made = chunks.flatMap((f) => readFileSync(join(ROOT, f), 'utf8').match(/new Intl\.Segmenter\b/g) ?? []);
    expect(made).toHaveLength(1);
    const widths = chunks.find((f) => /export\{[^}]*\bterminalWidth\b/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(widths).toBeDefined();
    const script = [
      'const made = { segmenters: 0, emojiSets: 0 };',
      'Intl.Segmenter = new Proxy(Intl.Segmenter, { construct(t, a) { made.segmenters++; return Reflect.construct(t, a); } });',
      "globalThis.RegExp = new Proxy(RegExp, { construct(t, a) { if (String(a[0]).includes('RGI_Emoji')) made.emojiSets++; return Reflect.construct(t, a); } });",
      `const loaded = await Promise.all(${JSON.stringify(chunks.map((f) => pathToFileURL(join(ROOT, f)).href))}.map((u) => import(u)));`,
      'const atLoad = { ...made };',
      `const { terminalWidth } = loaded[${chunks.indexOf(widths!)}];`,
      "const simple = terminalWidth('╭─ ❯ ok ░│ 中');",
      'const afterSimple = { ...made };',
      "console.log(JSON.stringify({ atLoad, simple, afterSimple, emoji: terminalWidth('a👍🏽b'), flag: terminalWidth('🇫🇷'), after: made }));",
    ].join('\n');
    const r = await runNode(['--input-type=module', '-e', script]);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim())).toEqual({
      atLoad: { segmenters: 0, emojiSets: 0 },
      simple: 13,
      afterSimple: { segmenters: 0, emojiSets: 0 },
      // string-width's own answers, once a string needs them: made then, once
      emoji: 4,
      flag: 2,
      after: { segmenters: 1, emojiSets: 1 },
    });
  });

  it("the Markdown renderer's chunk registers highlight.js's languages at the first code block, and holds no emoji table", async () => {
    const chunk = chunksHolding('node_modules/highlight.js/lib/index.js')[0];
    expect(chunk).toBeDefined();
    // scripts/build.ts's lazyHighlight: marked-terminal's node-emoji is a stub (ui/markdown.ts sets emoji: false)
    expect(Object.keys(distMeta().outputs[chunk!]!.inputs).filter((i) => /node_modules\/(emojilib|node-emoji)\//.test(i))).toEqual([]);
    const script = [
      `const { renderMarkdown } = await import(${JSON.stringify(pathToFileURL(join(ROOT, chunk!)).href)});`,
      'const render = (md) => renderMarkdown(md, { width: 80, color: true });',
      'const colours = (s) => new Set(s.match(/\\u001b\\[[\\d;]*m/g) ?? []).size;',
      "const python = render('```python\\ndef f(x):\\n    return x + 1\\n```');",
      'const bash = render(\'```sh\\necho \\"hi $HOME\\"\\n```\');',
      "const none = render('```\\nconst x = 1;\\n```');",
      'console.log(JSON.stringify({ python: colours(python), bash: colours(bash), none: colours(none), text: python.replace(/\\u001b\\[[\\d;]*m/g, "") }));',
    ].join('\n');
    const r = await runNode(['--input-type=module', '-e', script], { ...process.env, FORCE_COLOR: '1' });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim()) as { python: number; bash: number; none: number; text: string };
    expect(out.text).toContain('def f(x):');
    // the languages were there when the first block asked, by name and by alias
    expect(out.python).toBeGreaterThan(2);
    expect(out.bash).toBeGreaterThan(1);
    expect(out.none).toBe(0);
  });

  it('with AGENT_DEBUG_STACK a failure prints its stack mapped to src/ through the source maps', async () => {
    const ws = workspace();
    const notADir = join(ws.root, 'a-file');
    writeFileSync(notADir, '');
    const r = await packagesLoaded(['sessions', '--db', join(notADir, 'agent.db')], { ...process.env, HOME: ws.home, AGENT_DEBUG_STACK: '1' }, ws.dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/at \S+ \(.*src\/store\/open\.ts:\d+:\d+\)/);
    expect(r.stderr).not.toContain('dist/chunks');
  });
});

// What `agent` says when SQLite's native module is missing (moved from doctor.test.ts, whose
// other tests run in-process): the missing module is staged in a copy of the installed layout
// (bin/, dist/, package.json and a node_modules whose entries link to the checkout's, less
// SQLite's), so the checkout's own node_modules stay whole for the tests running beside this one.

/** A copy of the layout `npm install -g` makes, whose node_modules lack SQLite (or hold `sqlite` as given). */
function installedWithout(sqlite: (modules: string) => void): { bin: string; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'agent-nosqlite-'));
  const pkg = join(root, 'agent');
  mkdirSync(join(pkg, 'node_modules'), { recursive: true });
  // copies, not links: Node resolves a linked file to its real path, whose node_modules has SQLite
  cpSync(join(ROOT, 'bin'), join(pkg, 'bin'), { recursive: true });
  cpSync(join(ROOT, 'dist'), join(pkg, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(pkg, 'package.json'));
  for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
    if (entry === 'better-sqlite3' || entry === 'better-sqlite3-13' || entry === '.bin') continue;
    symlinkSync(join(ROOT, 'node_modules', entry), join(pkg, 'node_modules', entry));
  }
  sqlite(join(pkg, 'node_modules'));
  return { bin: join(pkg, 'bin', 'agent.js'), cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

function runBin(bin: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<RunResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code, signal) => done({ code, signal, stdout, stderr }));
  });
}

describe('without SQLite', () => {
  const cleanups: Array<() => void> = [];
  afterAll(() => {
    for (const c of cleanups) c();
  });

  it('agent prints one paragraph that says what happened and what to run, exit 1, no stack; doctor names its sqlite check', async () => {
    const { bin, cleanup } = installedWithout(() => {});
    cleanups.push(cleanup);
    const ws = workspace();
    const env = agentEnv({ ws, server });
    const r = await runBin(bin, ['-p', 'hi', '--model', 'claude-sonnet-4-6'], env, ws.dir);
    // an error that reached the store as a StoreError ("Could not open the database…"), or a stack, fails here
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    // the prefix once: the message's own "agent cannot start:" after the CLI's "agent:" fails here
    expect(lines[0]).toMatch(/^agent: SQLite's native module did not load on Node\.js \d+ \(/);
    expect(lines[0]).toContain('is not installed');
    expect(lines[0]).toContain('npm install -g @longhaul/agent');
    expect(server.requests).toHaveLength(0);

    const doctor = await runBin(bin, ['doctor'], env, ws.dir);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/FAIL\s+sqlite\s+the native module did not load/);
    expect(doctor.stdout).toContain("SQLite's native module did not load");
    expect(doctor.stdout).toMatch(/1 check failed: sqlite\./);
  });

  it('a better-sqlite3 whose install script never ran is told apart from a missing one', async () => {
    // the package without its build/ folder: what npm 12 leaves when it blocks the install script
    const { bin, cleanup } = installedWithout((modules) => {
      const from = join(ROOT, 'node_modules', 'better-sqlite3');
      for (const part of ['package.json', 'lib']) cpSync(join(from, part), join(modules, 'better-sqlite3', part), { recursive: true });
    });
    cleanups.push(cleanup);
    const ws = workspace();
    const r = await runBin(bin, ['sessions'], agentEnv({ ws }), ws.dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is installed but was never built (its install script did not run)');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a damaged binary is told to reinstall, never to install a C toolchain', async () => {
    // the package with a binary that is no library (a cut download): the loader says "invalid ELF header"
    const { bin, cleanup } = installedWithout((modules) => {
      const from = join(ROOT, 'node_modules', 'better-sqlite3');
      const into = join(modules, 'better-sqlite3');
      for (const part of ['package.json', 'lib']) cpSync(join(from, part), join(into, part), { recursive: true });
      mkdirSync(join(into, 'build', 'Release'), { recursive: true });
      writeFileSync(join(into, 'build', 'Release', 'better_sqlite3.node'), 'not a library, cut short by a download');
      // on Node 22 and later the prebuilt package is the first choice: damaged the same way
      const prebuilt = join(ROOT, 'node_modules', 'better-sqlite3-13');
      if (existsSync(prebuilt)) {
        for (const part of ['package.json', 'lib']) cpSync(join(prebuilt, part), join(modules, 'better-sqlite3-13', part), { recursive: true });
        mkdirSync(join(modules, 'better-sqlite3-13', 'build', 'Release'), { recursive: true });
        writeFileSync(join(modules, 'better-sqlite3-13', 'build', 'Release', 'better_sqlite3.node'), 'not a library');
      }
    });
    cleanups.push(cleanup);
    const ws = workspace();
    const r = await runBin(bin, ['sessions'], agentEnv({ ws }), ws.dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('has a damaged binary (');
    expect(r.stderr).toContain('reinstall with `npm install -g @longhaul/agent');
    expect(r.stderr).not.toContain('toolchain');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
