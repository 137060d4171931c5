import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentEnv, KEY, runAgent, useFakeServer, workspace, type RunResult } from './harness.js';

// `agent doctor` and what `agent` says when SQLite's native module is missing. The missing
// module is staged in a copy of the installed layout (bin/, dist/, package.json and a
// node_modules whose entries link to the checkout's, less SQLite's), so the checkout's own
// node_modules stay whole for the tests running beside this one.

const ROOT = resolve(__dirname, '..', '..');
const server = useFakeServer();
const CHECKS = ['node', 'npm', 'sqlite', 'ripgrep', 'database', 'checkpoints', 'config', 'keys', 'mcp', 'sandbox'];

interface Report {
  ok: boolean;
  checks: Array<{ name: string; status: string; summary: string; details?: string[] }>;
}

describe('agent doctor', () => {
  it('checks everything in order and prints the report as JSON, the key never', async () => {
    const ws = workspace();
    const r = await runAgent(['doctor', '--json'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    // printing the key's value (a summary that says `${env[keyVar]}`) fails here
    expect(r.stdout).not.toContain(KEY.anthropic);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.checks.map((c) => c.name)).toEqual(CHECKS);
    expect(report.ok).toBe(true);
    expect(report.checks.find((c) => c.name === 'keys')?.summary).toContain('ANTHROPIC_API_KEY is set');
    expect(report.checks.find((c) => c.name === 'sqlite')?.summary).toMatch(/FTS5 yes, WAL yes/);
  });

  it('names a config file with an unknown key, and the key the provider lacks, and exits 1', async () => {
    const ws = workspace({ compactoin: {} });
    const r = await runAgent(['doctor'], { ws, env: { ANTHROPIC_API_KEY: undefined } });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL\s+config\s+a config file is wrong/);
    expect(r.stdout).toContain('compactoin');
    expect(r.stdout).toMatch(/\d checks? failed: config\./);
  });

  it("starts the person's MCP servers through the session's manager, reports one that cannot start, and runs no unapproved project server", async () => {
    const ws = workspace({});
    const marker = join(ws.root, 'project-server-ran');
    // a project's server waits for the person's approval: starting it anyway creates the marker and fails this test
    writeFileSync(join(ws.dir, '.mcp.json'), JSON.stringify({ mcpServers: { proj: { command: '/bin/sh', args: ['-c', `touch ${marker}`] } } }));
    writeFileSync(join(ws.home, '.agentrc'), JSON.stringify({ mcpServers: { broken: { command: join(ROOT, 'no-such-server') } } }));
    const r = await runAgent(['doctor', '--json'], { ws, server });
    const mcp = (JSON.parse(r.stdout) as Report).checks.find((c) => c.name === 'mcp');
    expect(r.code).toBe(1);
    expect(mcp?.status).toBe('fail');
    expect(mcp?.summary).toBe('0 of 2 servers started; failed: broken');
    expect(mcp?.details?.join('\n')).toMatch(/broken \(stdio, .*\.agentrc\): failed: .*ENOENT/);
    expect(mcp?.details?.join('\n')).toContain('proj (stdio, ');
    expect(mcp?.details?.join('\n')).toContain('waits for your approval');
    expect(existsSync(marker)).toBe(false);
  });
});

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
