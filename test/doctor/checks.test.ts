import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { loadConfig } from '../../src/config/config.js';
import { checkCheckpoints, checkDatabase, checkKeys, checkNode, checkSandbox, type CheckResult } from '../../src/doctor/checks.js';
import { formatReport, type DoctorReport } from '../../src/doctor/doctor.js';
import { tempDir } from '../tempDirs.js';

// `agent doctor`'s checks on their own, with the machine's facts handed in: which Node.js versions
// pass (package.json's engines), what the key check says and never says, the database folder's
// check, and the report's lines and verdict. test/e2e/doctor.test.ts runs the built command.

describe('node: the versions package.json engines allow', () => {
  it('engines is the range the check follows', () => {
    expect(pkg.engines.node).toBe('^20.11.0 || >=22');
  });

  it('accepts 20.11.x (the engines floor) and fails 20.10 and older', () => {
    expect(checkNode('20.11.0').status).toBe('ok');
    expect(checkNode('20.11.1').status).toBe('ok');
    expect(checkNode('20.19.4').status).toBe('ok');
    const old = checkNode('20.10.0');
    expect(old.status).toBe('fail');
    expect(old.summary).toBe('v20.10.0: agent needs Node.js 20.11 or later (22 or later recommended)');
    expect(checkNode('18.20.3').status).toBe('fail');
    expect(checkNode('19.99.0').status).toBe('fail');
  });

  it('warns on 21 (an odd release), passes 22 and later, and names the SQLite binding each means', () => {
    expect(checkNode('21.7.3')).toMatchObject({ status: 'warn', summary: expect.stringContaining('odd release') });
    expect(checkNode('22.0.0')).toEqual({ name: 'node', status: 'ok', summary: 'v22.0.0 (SQLite: better-sqlite3 13, prebuilt)' });
    expect(checkNode('24.3.0').status).toBe('ok');
    expect(checkNode('20.11.0').summary).toBe('v20.11.0 (SQLite: better-sqlite3 12, built from source at install)');
  });
});

describe('keys', () => {
  const config = (env: NodeJS.ProcessEnv) => {
    const home = tempDir('agent-doctor-home-');
    return loadConfig({ cwd: home, env, flags: {}, home });
  };

  it("fails when the provider's key is missing, naming the variable", () => {
    const r = checkKeys(config({}), {});
    expect(r.status).toBe('fail');
    expect(r.summary).toMatch(/^anthropic \(claude-sonnet-5-5\): .*ANTHROPIC_API_KEY/);
    expect(r.details).toEqual(['no provider key variable is set']);
  });

  it('passes with the key set, by name and never by value', () => {
    const env = { ANTHROPIC_API_KEY: 'sk-ant-doctor-SECRET-1234567890' };
    const r = checkKeys(config(env), env);
    expect(r).toMatchObject({ status: 'ok', summary: 'anthropic (claude-sonnet-5-5): ANTHROPIC_API_KEY is set' });
    expect(JSON.stringify(r)).not.toContain('SECRET');
  });

  it('a configuration that did not load is a warning, not a pass', () => {
    expect(checkKeys(undefined, {})).toMatchObject({ status: 'warn', summary: expect.stringMatching(/^not checked/) });
  });
});

describe('database', () => {
  it('a path not created yet is checked at its nearest existing folder', () => {
    const dir = tempDir('agent-doctor-db-');
    const r = checkDatabase(join(dir, 'a', 'b', 'agent.db'));
    expect(r.status).toBe('ok');
    expect(r.summary).toMatch(/free, not created yet\)$/);
    writeFileSync(join(dir, 'here.db'), 'x'.repeat(3 * 1024 * 1024));
    expect(checkDatabase(join(dir, 'here.db')).summary).toMatch(/, 3 MiB now\)$/);
  });

  it('warns below 200 MiB free (a full disk stops sessions from being saved), passes above', () => {
    const dir = tempDir('agent-doctor-disk-');
    const blocks = (mib: number) => () => ({ bavail: mib * 256, bsize: 4096 });
    // mutation: the warning only below a thousandth of the threshold passes 100 MiB
    expect(checkDatabase(join(dir, 'agent.db'), blocks(100))).toMatchObject({ status: 'warn', details: [expect.stringContaining('less than 200 MiB free')] });
    expect(checkDatabase(join(dir, 'agent.db'), blocks(300)).status).toBe('ok');
  });

  it.skipIf(process.getuid?.() === 0)('a folder it cannot write to fails', () => {
    const dir = tempDir('agent-doctor-ro-');
    mkdirSync(join(dir, 'ro'));
    chmodSync(join(dir, 'ro'), 0o500);
    try {
      expect(checkDatabase(join(dir, 'ro', 'agent.db'))).toMatchObject({ status: 'fail', summary: expect.stringMatching(/ro is not writable$/) });
    } finally {
      chmodSync(join(dir, 'ro'), 0o700);
    }
  });
});

describe('checkpoints', () => {
  /** A data folder whose one shadow store holds `kib` KiB of incompressible objects. */
  function dataWithStore(kib: number): string {
    const data = tempDir('agent-doctor-cp-');
    const gitDir = join(data, 'checkpoints', 'p1.git');
    execFileSync('git', ['init', '--quiet', '--bare', gitDir]);
    writeFileSync(join(gitDir, 'project'), '/work/p1\n');
    const blob = join(data, 'blob');
    writeFileSync(blob, randomBytes(kib * 1024));
    execFileSync('git', [`--git-dir=${gitDir}`, 'hash-object', '-w', blob]);
    return data;
  }

  it('weighs the shadow stores against checkpoints.maxStoreMB in MiB, warning over it', async () => {
    const home = tempDir('agent-doctor-home-');
    const loaded = loadConfig({ cwd: home, env: { ANTHROPIC_API_KEY: 'k' }, flags: {}, home });
    const cap1 = { ...loaded, checkpoints: { ...loaded.checkpoints, maxStoreMB: 1 } };
    const small = await checkCheckpoints(cap1, dataWithStore(300));
    expect(small).toMatchObject({
      status: 'ok',
      summary: expect.stringMatching(/^1 project, .+ in /),
      details: [expect.stringMatching(/^\/work\/p1: [^,]+$/)],
    });
    const big = await checkCheckpoints(cap1, dataWithStore(1_600));
    expect(big).toMatchObject({ status: 'warn', details: [expect.stringMatching(/^\/work\/p1: .+, over checkpoints.maxStoreMB \(1\)$/)] });
    expect((await checkCheckpoints({ ...loaded, checkpoints: { ...loaded.checkpoints, enabled: false } }, dataWithStore(300))).summary).toBe(
      'off (checkpoints.enabled is false)',
    );
  });
});

describe('the sandbox, off', () => {
  it.runIf(process.platform === 'linux')('says what this Linux machine lacks to turn it on (bwrap, socat), and nothing when both are on PATH', async () => {
    const home = tempDir('agent-doctor-sb-');
    const config = loadConfig({ cwd: home, env: { ANTHROPIC_API_KEY: 'k' }, flags: {}, home });
    const bare = join(home, 'bare');
    const tools = join(home, 'tools');
    mkdirSync(bare);
    mkdirSync(tools);
    for (const name of ['bwrap', 'socat']) writeFileSync(join(tools, name), '#!/bin/sh\n', { mode: 0o755 });
    const lacking = await checkSandbox(config, { PATH: bare });
    expect(lacking).toMatchObject({
      status: 'ok',
      summary: expect.stringContaining('(this machine lacks bwrap and socat: install bubblewrap and socat first)'),
    });
    const ready = await checkSandbox(config, { PATH: tools });
    expect(ready).toEqual({ name: 'sandbox', status: 'ok', summary: 'off: Bash runs unsandboxed; "sandbox": { "enabled": true } turns it on' });
  });
});

describe('the sandbox, enabled', () => {
  it.runIf(process.platform === 'linux')('fails when it cannot start (here: no bwrap on PATH), with what to install and what Bash does meanwhile', async () => {
    const home = tempDir('agent-doctor-sb-on-');
    writeFileSync(join(home, '.agentrc'), JSON.stringify({ sandbox: { enabled: true } }));
    const config = loadConfig({ cwd: home, env: { ANTHROPIC_API_KEY: 'k' }, flags: {}, home });
    // the library looks for its dependencies on the process's PATH (with `which`): one of them missing
    const bare = join(home, 'bare');
    mkdirSync(bare);
    for (const tool of ['which', 'socat']) symlinkSync(execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(), join(bare, tool));
    const path = process.env['PATH'];
    process.env['PATH'] = bare;
    try {
      const asks = await checkSandbox(config, { PATH: bare });
      expect(asks).toEqual({
        name: 'sandbox',
        status: 'fail',
        // mutation: `deps.errors.length > 0` made `> 1` (runtime.ts): one missing dependency let through to the library's own refusal
        summary: 'enabled but it cannot start: bubblewrap (bwrap) not installed',
        details: [expect.stringMatching(/^to fix: install bubblewrap and socat/), 'meanwhile every Bash command asks first'],
      });
      const refuses = await checkSandbox({ ...config, sandbox: { ...config.sandbox!, failIfUnavailable: true } }, { PATH: bare });
      expect(refuses.details?.[1]).toBe('meanwhile every Bash command is refused');
    } finally {
      process.env['PATH'] = path;
    }
  });

  it('is a warning, not a pass, when the configuration did not load', async () => {
    expect(await checkSandbox(undefined, {})).toEqual({ name: 'sandbox', status: 'warn', summary: 'not checked: the configuration did not load' });
  });
});

describe('the report', () => {
  const report = (checks: CheckResult[]): DoctorReport => ({ name: 'agent', version: '1.0.0', ok: checks.every((c) => c.status !== 'fail'), checks });

  it('one line a check, details under it, and the failed checks named at the end', () => {
    const text = formatReport(
      report([
        { name: 'node', status: 'ok', summary: 'v22.0.0' },
        { name: 'ripgrep', status: 'warn', summary: 'no ripgrep', details: ['Grep uses JavaScript'] },
        { name: 'keys', status: 'fail', summary: 'no key' },
        { name: 'mcp', status: 'fail', summary: 'a server did not start' },
      ]),
    );
    expect(text.split('\n')).toEqual([
      'agent doctor: agent 1.0.0',
      '  ok    node     v22.0.0',
      '  warn  ripgrep  no ripgrep',
      '                 Grep uses JavaScript',
      '  FAIL  keys     no key',
      '  FAIL  mcp      a server did not start',
      '2 checks failed: keys, mcp.',
    ]);
  });

  it('warnings alone are no problem', () => {
    expect(
      formatReport(report([{ name: 'npm', status: 'warn', summary: 'npm was not found' }]))
        .split('\n')
        .at(-1),
    ).toBe('No problems found.');
  });
});

// Mutations checked: checkNode's `minor < 11` as `minor < 10` passes 20.10 (fails "accepts 20.11.x"),
// as `minor <= 11` fails 20.11.0; checkDatabase without its climb to an existing folder fails "not
// created yet"; formatReport counting warnings as failures fails both report cases;
// checkCheckpoints' cap taken as KiB (`maxStoreMB * 1024`) warns on the 300 KiB store (the fresh
// sample of 6 Dec, mutant 5).
