import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEY, runAgent, useFakeServer, workspace } from './inprocess.js';

// `agent doctor`, run in-process (inprocess.ts). What an installed `agent` (and its doctor) says
// when SQLite's native module is missing is startup.test.ts's: a process started from a copy of
// the installed layout.

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
