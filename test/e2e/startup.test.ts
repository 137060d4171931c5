import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_BIN, workspace } from './harness.js';

// Start-up stays light: the paths that do not need ink, the SDKs, the tokenizer or SQLite
// must not load them. A module-resolve hook in the child lists every package it loads.

const HEAVY = ['ink', 'react', '@anthropic-ai/sdk', 'openai', 'gpt-tokenizer', 'better-sqlite3', 'marked', 'zod'];

function packagesLoaded(args: string[], env: NodeJS.ProcessEnv = process.env, cwd?: string): { packages: Set<string>; status: number | null; stdout: string; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'agent-startup-'));
  const hook = join(dir, 'hook.mjs');
  writeFileSync(
    hook,
    `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(
      "export async function resolve(s, c, n) { const r = await n(s, c); const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(r.url); if (m) process.stderr.write('PKG ' + m[1] + '\\n'); return r; }",
    )}));
`,
  );
  const r = spawnSync(process.execPath, ['--import', hook, AGENT_BIN, ...args], { encoding: 'utf8', env, ...(cwd ? { cwd } : {}) });
  const packages = new Set(r.stderr.split('\n').flatMap((l) => (l.startsWith('PKG ') ? [l.slice(4)] : [])));
  return { packages, status: r.status, stdout: r.stdout, stderr: r.stderr.split('\n').filter((l) => !l.startsWith('PKG ')).join('\n') };
}

describe('start-up', () => {
  it('--version loads commander only', () => {
    const r = packagesLoaded(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect([...r.packages]).toEqual(['commander']);
  });

  it('--help loads commander only', () => {
    const r = packagesLoaded(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: agent');
    expect([...r.packages]).toEqual(['commander']);
  });

  it('`agent sessions` loads the store but neither ink, the SDKs nor the tokenizer', () => {
    const ws = workspace();
    const r = packagesLoaded(['sessions'], { ...process.env, HOME: ws.home, AGENT_DB: ws.db }, ws.dir);
    expect(r.status, r.stderr).toBe(0);
    expect(r.packages.has('better-sqlite3')).toBe(true);
    for (const heavy of ['ink', 'react', '@anthropic-ai/sdk', 'openai', 'gpt-tokenizer']) expect(r.packages.has(heavy), heavy).toBe(false);
  });

  it('a configuration error is reported before any heavy module loads', () => {
    const ws = workspace({ compaction: { auto: 'yes' } });
    const r = packagesLoaded(['-p', 'hi'], { ...process.env, HOME: ws.home, AGENT_DB: ws.db }, ws.dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('field "compaction.auto"');
    for (const heavy of HEAVY.filter((p) => p !== 'zod' && p !== 'better-sqlite3')) expect(r.packages.has(heavy), heavy).toBe(false);
  });
});
