import { spawn } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { startFakeServer, type FakeServer } from '../test/fake-server/server.js';

// `npm run test:install` (a step of `npm test`, beside vitest): installs agent as people install it and
// runs it. Packs this checkout (prepack builds dist/), checks the tarball's contents, installs
// it globally into a clean prefix twice — with this machine's Node.js and npm (Node 20 + npm 11:
// better-sqlite3 12 compiles) and with Node.js 24 + npm 12 fetched from the npm registry
// (node-<platform>@24, npm@12; cached in $TMPDIR/agent-install-test-cache, so later runs
// and CI reuse them), where npm blocks every dependency's install script — and runs the
// installed `agent --version`, `agent doctor --json` and one `-p` turn against the fake
// provider. With the SQLite module removed from the Node 24 install, `agent` must explain
// itself (exit 1, no stack) and `agent doctor` must name its sqlite check. Last, the store's
// tests run under Node 24 (better-sqlite3 13 from that install). The two pairs run side by side.
// On Node 20, a person's install downloads better-sqlite3 12's prebuilt binary from GitHub; with
// no internet here it would compile for minutes (what `npm ci` of this checkout already did), so a
// local mirror serves the binary that build made (prebuild-install's documented host override).
// It works on a copy of the checkout (below), so `npm test` runs it beside vitest.
// Fails with the step that failed; prints each step's time and the wall time.

const ROOT = resolve(import.meta.dirname, '..');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
// outside the repository, and readable by every user: the store's tests run a child as "nobody" with this Node.js
const CACHE = join(tmpdir(), 'agent-install-test-cache');
const KEY = 'sk-ant-install-test-SECRET-0123456789';
const t0 = performance.now();
const seconds = (since: number): string => `${((performance.now() - since) / 1000).toFixed(1)} s`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** This process's environment without what `npm run` added (npm_config_*, npm_lifecycle_*…): each npm here reads the person's own settings. */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
  return { ...env, ...extra };
}

/** Process groups still running: a failure in one pair ends the other's install (and its compiler) too. */
const running = new Set<number>();

function stopAll(): void {
  for (const pid of running) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Runs a command to its end in a process group of its own (asynchronously: the fake server in this process must keep answering). */
function run(command: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { env: opts.env ?? cleanEnv(), cwd: opts.cwd ?? ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    if (child.pid) running.add(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => {
      if (child.pid) running.delete(child.pid);
      done({ code, stdout, stderr });
    });
  });
}

function check(ok: boolean, what: string, r?: Run): void {
  if (ok) return;
  const out = r ? `\n--- stdout\n${r.stdout.slice(-3000)}\n--- stderr\n${r.stderr.slice(-3000)}` : '';
  throw new Error(`install test: ${what}${out}`);
}

async function step<T>(label: string, f: () => Promise<T>): Promise<T> {
  const s = performance.now();
  const value = await f();
  console.log(`  ${label}: ${seconds(s)}`);
  return value;
}

/** The newest version of `spec` on the registry, cached unpacked in CACHE/<name>-<version>; the newest cached one when the registry cannot be asked. */
async function cachedPackage(name: string, range: string): Promise<string> {
  mkdirSync(CACHE, { recursive: true });
  const view = await run('npm', ['view', `${name}@${range}`, 'version', '--json']);
  const listed = view.code === 0 ? (JSON.parse(view.stdout) as string | string[]) : [];
  const versions = (Array.isArray(listed) ? listed : [listed]).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const cached = readdirSync(CACHE)
    .filter((d) => d.startsWith(`${name}-${range}.`) && existsSync(join(CACHE, d, 'package.json')))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const version = versions.at(-1);
  if (!version) {
    check(cached.length > 0, `${name}@${range}: not on the registry (${view.stderr.trim()}) and not cached in ${CACHE}`);
    return join(CACHE, cached.at(-1)!);
  }
  const dir = join(CACHE, `${name}-${version}`);
  if (existsSync(join(dir, 'package.json'))) return dir;
  const packed = await run('npm', ['pack', `${name}@${version}`, '--pack-destination', CACHE, '--silent']);
  check(packed.code === 0, `npm pack ${name}@${version}`, packed);
  const tarball = join(CACHE, packed.stdout.trim().split('\n').at(-1)!);
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial);
  const untar = await run('tar', ['xzf', tarball, '-C', partial, '--strip-components=1']);
  check(untar.code === 0, `unpacking ${tarball}`, untar);
  rmSync(tarball);
  renameSync(partial, dir);
  return dir;
}

interface Pair {
  label: string;
  /** Directories put first on PATH: the pair's node (and npm). */
  path: string[];
  npm: string[];
  nodeMajor: number;
  npmMajor: number;
  prefix: string;
}

const systemPath = ['/usr/local/bin', '/usr/bin', '/bin'].filter((d) => existsSync(d));

/** Installs the tarball globally into the pair's empty prefix; the person's npm settings (registry, cache, nodedir) apply. */
async function install(pair: Pair, tarball: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<void> {
  const env = cleanEnv({ PATH: [...pair.path, ...systemPath].join(delimiter), ...extraEnv });
  const r = await run(pair.npm[0]!, [...pair.npm.slice(1), 'install', '-g', tarball, '--prefix', pair.prefix, '--no-audit', '--no-fund'], { env });
  check(r.code === 0, `${pair.label}: npm install -g`, r);
  // npm 11+ names a package whose install scripts allowScripts does not cover: the published one has none
  check(!new RegExp(`install-scripts\\s+${PKG.name}@`).test(r.stderr), `${pair.label}: npm install -g asks to allow no script of ${PKG.name}`, r);
}

/**
 * The checkout copied into `work` (its files but .git, node_modules and dist/; node_modules linked
 * to the checkout's): prepack and postpack build dist/ and swap package.json there, and the store
 * tests' vitest builds dist/ there, never under the checkout's own end-to-end files, which run
 * its dist/ while `npm test` runs this beside vitest (scripts/test.ts).
 */
function copyCheckout(work: string): string {
  const copy = join(work, 'checkout');
  const left = new Set(['.git', 'node_modules', 'dist'].map((d) => join(ROOT, d)));
  cpSync(ROOT, copy, { recursive: true, filter: (src) => !left.has(src) && !src.endsWith('.tgz') });
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(copy, 'node_modules'));
  return copy;
}

const installed = (pair: Pair): string => join(pair.prefix, 'lib', 'node_modules', ...PKG.name.split('/'));

interface Mirror {
  /** prebuild-install's host override for better-sqlite3, pointing here. */
  env: NodeJS.ProcessEnv;
  /** Downloads answered with the binary. */
  served: () => number;
  close: () => Promise<void>;
}

/**
 * Stands in for GitHub's release downloads of better-sqlite3 (prebuild-install's URL shape:
 * <host>/v<version>/better-sqlite3-v<version>-node-v<abi>-<platform>-<arch>.tar.gz), serving
 * this checkout's build for this Node.js; any other path is a 404, after which prebuild-install
 * falls back to compiling, as it would offline.
 */
async function prebuiltMirror(work: string): Promise<Mirror> {
  const pkg = join(ROOT, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string };
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const archive = join(work, name);
  const packed = await run('tar', ['czf', archive, '-C', pkg, join('build', 'Release', 'better_sqlite3.node')]);
  check(packed.code === 0, `packing ${pkg}'s binary`, packed);
  let served = 0;
  const server = createServer((req, res) => {
    if (req.url !== `/v${version}/${name}`) {
      res.writeHead(404).end();
      return;
    }
    served++;
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(archive));
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return {
    env: { npm_config_better_sqlite3_binary_host: `http://127.0.0.1:${port}` },
    served: () => served,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

/**
 * What a publish sends the registry: `npm publish` of the tarball to a registry in this process,
 * which records the version's manifest (the registry serves it to installers) and answers 201.
 * A publish of the checkout itself is refused by prepublishOnly before it packs: npm re-reads
 * package.json after postpack put the checkout's back, and would send the dev scripts.
 */
async function publishedVersion(tarball: string, work: string, checkout: string): Promise<Record<string, unknown> | undefined> {
  let sent: Record<string, unknown> | undefined;
  const server = createServer((req, res) => {
    if (req.method !== 'PUT') return void res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { versions?: Record<string, Record<string, unknown>> };
      sent = body.versions?.[PKG.version];
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  try {
    const fromDir = await run('npm', ['publish', '--dry-run', '--registry', registry], { cwd: checkout });
    check(
      fromDir.code !== 0 && fromDir.stderr.includes('Publish the packed tarball instead'),
      'npm publish of the checkout is refused, naming the tarball way',
      fromDir,
    );
    const auth = `--${registry.replace(/^http:/, '')}:_authToken=install-test`;
    const published = await run('npm', ['publish', tarball, '--registry', registry, auth, '--access', 'public'], { cwd: work });
    check(published.code === 0, 'npm publish of the tarball to the local registry', published);
  } finally {
    await new Promise<void>((done) => server.close(() => done()));
  }
  return sent;
}

/** The installed agent's environment: its prefix and the pair's node first on PATH, a fresh HOME, the fake provider. */
function agentEnv(pair: Pair, home: string, server: FakeServer): NodeJS.ProcessEnv {
  return {
    PATH: [join(pair.prefix, 'bin'), ...pair.path, ...systemPath].join(delimiter),
    HOME: home,
    AGENT_DB: join(home, 'agent.db'),
    ANTHROPIC_API_KEY: KEY,
    ANTHROPIC_BASE_URL: server.anthropicBaseURL,
    NO_COLOR: '1',
  };
}

interface DoctorJson {
  ok: boolean;
  checks: Array<{ name: string; status: string; summary: string }>;
}

/** --version, doctor --json and one -p turn of the installed agent. */
async function exercise(pair: Pair, server: FakeServer): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'agent-install-home-'));
  const project = join(home, 'project');
  mkdirSync(project);
  writeFileSync(join(project, '.agentrc'), '{}');
  const env = agentEnv(pair, home, server);
  const agent = join(pair.prefix, 'bin', 'agent');
  try {
    const version = await run(agent, ['--version'], { env, cwd: project });
    check(version.code === 0 && version.stdout.trim() === PKG.version, `${pair.label}: agent --version`, version);
    const doctor = await run(agent, ['doctor', '--json'], { env, cwd: project });
    check(doctor.code === 0, `${pair.label}: agent doctor exits 0`, doctor);
    check(!doctor.stdout.includes(KEY), `${pair.label}: agent doctor printed the key`, doctor);
    const report = JSON.parse(doctor.stdout) as DoctorJson;
    const sqlite = report.checks.find((c) => c.name === 'sqlite');
    const expected = pair.nodeMajor >= 22 ? 'better-sqlite3 (prebuilt) 13.' : 'better-sqlite3 12.';
    check(sqlite?.status === 'ok' && sqlite.summary.startsWith(expected), `${pair.label}: doctor's sqlite check is "${expected}…"`, doctor);
    const npm = report.checks.find((c) => c.name === 'npm');
    check(npm?.status === 'ok' && npm.summary.startsWith(`${pair.npmMajor}.`), `${pair.label}: doctor sees npm ${pair.npmMajor} on PATH`, doctor);
    const rg = report.checks.find((c) => c.name === 'ripgrep');
    check(rg?.status === 'ok' && rg.summary.includes(installed(pair)), `${pair.label}: the packaged ripgrep came along`, doctor);
    const print = await run(agent, ['-p', 'ping', '--model', 'claude-sonnet-4-6'], { env, cwd: project });
    check(print.code === 0 && print.stdout.trim() === 'pong', `${pair.label}: agent -p answers`, print);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** The SQLite packages moved out of the install: `agent` explains (exit 1, no stack), `agent doctor` names the sqlite check; then moved back. */
async function withoutSqlite(pair: Pair, server: FakeServer): Promise<void> {
  const modules = join(installed(pair), 'node_modules');
  const aside = mkdtempSync(join(tmpdir(), 'agent-install-aside-'));
  const moved = ['better-sqlite3', 'better-sqlite3-13'].filter((p) => existsSync(join(modules, p)));
  for (const p of moved) renameSync(join(modules, p), join(aside, p));
  const home = mkdtempSync(join(tmpdir(), 'agent-install-home-'));
  try {
    const env = agentEnv(pair, home, server);
    const agent = join(pair.prefix, 'bin', 'agent');
    const print = await run(agent, ['-p', 'ping', '--model', 'claude-sonnet-4-6'], { env, cwd: home });
    const lines = print.stderr.trim().split('\n');
    check(print.code === 1, `${pair.label} without SQLite: agent exits 1`, print);
    check(lines.length === 1 && lines[0]!.includes("SQLite's native module did not load"), `${pair.label} without SQLite: one paragraph`, print);
    check(lines[0]!.includes(`npm install -g ${PKG.name}`) && !/\n\s+at /.test(print.stderr), `${pair.label} without SQLite: what to run, no stack`, print);
    const doctor = await run(agent, ['doctor'], { env, cwd: home });
    check(doctor.code === 1 && /FAIL\s+sqlite/.test(doctor.stdout), `${pair.label} without SQLite: agent doctor names the sqlite check`, doctor);
  } finally {
    for (const p of moved) renameSync(join(aside, p), join(modules, p));
    rmSync(aside, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'agent-install-test-'));
  // the store's tests run a child as "nobody", which loads better-sqlite3 13 from the Node 24 install in here
  chmodSync(work, 0o755);
  const server = await startFakeServer({ fallback: { text: 'pong' } });
  let closeMirror: (() => Promise<void>) | undefined;
  try {
    console.log(`install test (${PKG.name} ${PKG.version}; cache ${CACHE})`);
    const checkout = await step('copy of the checkout', async () => copyCheckout(work));
    const checkoutManifest = readFileSync(join(checkout, 'package.json'), 'utf8');
    const packed = await step('npm pack (prepack builds dist/)', () => run('npm', ['pack', '--json', '--pack-destination', work], { cwd: checkout }));
    check(packed.code === 0, 'npm pack', packed);
    // prepack put the published package.json in place for the tarball; postpack put the checkout's back
    check(readFileSync(join(checkout, 'package.json'), 'utf8') === checkoutManifest, "after npm pack the checkout's package.json is as it was");
    check(!existsSync(join(checkout, 'package.json.checkout')), 'postpack removed package.json.checkout');
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('[\n'))) as Array<{
      filename: string;
      size: number;
      unpackedSize: number;
      files: Array<{ path: string }>;
    }>;
    const files = info!.files.map((f) => f.path);
    console.log(`  tarball: ${(info!.size / 1024).toFixed(0)} KiB, ${files.length} entries, ${(info!.unpackedSize / 1024).toFixed(0)} KiB unpacked`);
    for (const f of ['bin/agent.js', 'dist/cli.js', 'README.md', 'LICENSE', '.agentrc.example']) check(files.includes(f), `the tarball holds ${f}`);
    const stray = files.filter((f) => /^(src|test|bench|scripts)\//.test(f) || f.endsWith('.map') || f === 'dist/meta.json');
    check(stray.length === 0, `the tarball holds no sources, tests or maps: ${stray.join(', ')}`);
    const tarball = join(work, info!.filename);
    // its scripts pointed at files it does not ship (scripts/build.ts, vitest, biome, bench/), and npm asked the person to allow `prepare`
    const shipped = await run('tar', ['xzf', tarball, '-O', 'package/package.json']);
    check(shipped.code === 0, "reading the tarball's package.json", shipped);
    const scripts = (JSON.parse(shipped.stdout) as { scripts?: Record<string, string> }).scripts;
    check(scripts === undefined, `the published package.json has no scripts: ${JSON.stringify(scripts)}`);
    // the registry's copy of the manifest, which installers read, is the tarball's too (a publish of the checkout sent its dev scripts)
    const manifest = await step('npm publish to a local registry', () => publishedVersion(tarball, work, checkout));
    check(manifest?.name === PKG.name && manifest.scripts === undefined, `the registry got the manifest without scripts: ${JSON.stringify(manifest?.scripts)}`);

    const npmHere = await run('npm', ['--version']);
    const here: Pair = {
      label: `Node ${process.versions.node} + npm ${npmHere.stdout.trim()}`,
      path: [],
      npm: ['npm'],
      nodeMajor: Number(process.versions.node.split('.')[0]),
      npmMajor: Number(npmHere.stdout.split('.')[0]),
      prefix: join(work, 'prefix-here'),
    };
    const mirror = await prebuiltMirror(work);
    closeMirror = mirror.close;
    const pairHere = (async () => {
      await step(`${here.label}: install`, () => install(here, tarball, mirror.env));
      const compiled = existsSync(join(installed(here), 'node_modules', 'better-sqlite3', 'build', 'Release', 'obj.target'));
      console.log(
        `  ${here.label}: better-sqlite3 ${compiled ? 'compiled (the mirror had no binary for the version npm chose)' : `prebuilt, downloaded from the mirror (${mirror.served()}×)`}`,
      );
      await step(`${here.label}: --version, doctor, -p`, () => exercise(here, server));
    })();
    const pair24 = (async () => {
      const node = await step('fetch node@24', () => cachedPackage(`node-${process.platform}-${process.arch}`, '24'));
      const npm = await step('fetch npm@12', () => cachedPackage('npm', '12'));
      const nodeBin = join(node, 'bin');
      // npm's own bin/npm expects a Node.js distribution around it: a shim runs its npm-cli.js with this node
      const npmBin = join(work, 'npm-bin');
      mkdirSync(npmBin);
      writeFileSync(join(npmBin, 'npm'), `#!/bin/sh\nexec "${join(nodeBin, 'node')}" "${join(npm, 'bin', 'npm-cli.js')}" "$@"\n`, { mode: 0o755 });
      const next: Pair = {
        label: `Node ${node.split('-').at(-1)} + npm ${npm.split('-').at(-1)}`,
        path: [nodeBin, npmBin],
        npm: [join(nodeBin, 'node'), join(npm, 'bin', 'npm-cli.js')],
        nodeMajor: 24,
        npmMajor: 12,
        prefix: join(work, 'prefix-24'),
      };
      await step(`${next.label}: install`, () => install(next, tarball));
      // npm 12 ran no dependency's install script: better-sqlite3 12 stayed unbuilt, 13 needs none
      check(!existsSync(join(installed(next), 'node_modules', 'better-sqlite3', 'build')), "npm 12 blocked better-sqlite3 12's install script");
      await step(`${next.label}: --version, doctor, -p`, () => exercise(next, server));
      await step(`${next.label}: without SQLite`, () => withoutSqlite(next, server));
      // the checkout's node_modules has no better-sqlite3 13 when `npm ci` ran on Node 20 (an optional dependency for Node >= 22): the install's is found through NODE_PATH
      const env = cleanEnv({ PATH: [nodeBin, ...systemPath].join(delimiter), NODE_PATH: join(installed(next), 'node_modules') });
      // one worker: the unit files share its modules, which four workers each imported again (19-20 CPU-s against 21-26 for
      // these files under Node 20); the wall time is not on `npm test`'s path (vitest beside it takes longer)
      const vitest = join(checkout, 'node_modules', 'vitest', 'vitest.mjs');
      const store = await step('store tests under Node 24', () =>
        run(join(nodeBin, 'node'), [vitest, 'run', '--maxWorkers', '1', 'test/store'], { env, cwd: checkout }),
      );
      check(store.code === 0, 'the store tests under Node 24', store);
    })();
    // the first failure ends the run at once (the other pair's install may be compiling for minutes)
    for (const p of [pairHere, pair24]) p.catch(() => {});
    await Promise.all([pairHere, pair24]);
    console.log(`install test passed in ${seconds(t0)}`);
  } finally {
    const cleanup = performance.now();
    stopAll();
    await closeMirror?.();
    await server.close();
    rmSync(work, { recursive: true, force: true });
    console.log(`  cleaned up (the two installs, the copy): ${seconds(cleanup)}`);
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  console.error(`install test failed after ${seconds(t0)}`);
  process.exitCode = 1;
});
