import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { traitsOf } from '../../src/tools/kinds.js';
import { McpSchema } from '../../src/config/schema.js';
import { mcpServers } from '../../src/mcp/config.js';
import { McpManager } from '../../src/mcp/manager.js';
import { ProjectTrust } from '../../src/trust/projectTrust.js';
import type { McpServerFileEntry } from '../../src/config/schema.js';
import { startEverything } from './everything.js';

// The manager against real processes: the test tree's failing server (pagination,
// list_changed, crash and restart, timeout, a server that ignores SIGTERM) and the reference
// filesystem server (a second real server, with its readOnlyHint annotations).

const FAILING = resolve(__dirname, 'failing-server.mjs');
const FILESYSTEM = resolve(__dirname, '..', '..', 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');

let managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.map((m) => m.close()));
  managers = [];
});

function manager(
  servers: Record<string, McpServerFileEntry>,
  mcp: Record<string, unknown> = {},
  window = 200_000,
): { m: McpManager; notices: string[]; trust: ProjectTrust; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-manager-'));
  const trust = new ProjectTrust(join(dir, 'trust.json'));
  const entries = mcpServers(
    { cwd: dir, mcpServers: Object.entries(servers).map(([name, entry]) => ({ name, file: join(dir, '.agentrc'), entry })) },
    process.env,
    () => false,
    join(dir, 'home'),
  );
  const m = new McpManager({
    entries,
    config: McpSchema.parse(mcp),
    env: process.env,
    isSecret: () => false,
    trust,
    projectDir: dir,
    contextWindow: window,
    countSpecs: (s) => Math.ceil(JSON.stringify(s).length / 4),
    register: (t) => [...t],
  });
  const notices: string[] = [];
  m.onNotice = (level, text) => notices.push(`${level}: ${text}`);
  managers.push(m);
  return { m, notices, trust, dir };
}

const signal = (): AbortSignal => new AbortController().signal;
const until = async (cond: () => boolean, ms = 10_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
};

describe('McpManager with real servers', () => {
  it('a project server waits for approval; approving records it for the project and starts it', async () => {
    const { m, trust, dir } = manager({ f: { command: process.execPath, args: [FAILING] } });
    expect(m.views()[0]!.state).toBe('needs-approval');
    m.start();
    expect(m.views()[0]!.state).toBe('needs-approval');
    m.approve('f', true);
    await m.ready(10_000);
    expect(m.views()[0]!.state).toBe('connected');
    const saved = JSON.parse(readFileSync(trust.file, 'utf8')) as { approvals: { kind: string; projectDir: string; name: string }[] };
    expect(saved.approvals).toEqual([expect.objectContaining({ kind: 'mcp', projectDir: dir, name: 'f' })]);
    // the same entry, same project, same trust file: approved, it starts without asking
    const entries = mcpServers(
      { cwd: dir, mcpServers: [{ name: 'f', file: join(dir, '.agentrc'), entry: { command: process.execPath, args: [FAILING] } }] },
      process.env,
      () => false,
      join(dir, 'home'),
    );
    const again = new McpManager({
      entries,
      config: McpSchema.parse({}),
      env: process.env,
      isSecret: () => false,
      trust,
      projectDir: dir,
      contextWindow: 200_000,
      countSpecs: () => 1,
      register: (t) => [...t],
    });
    managers.push(again);
    expect(again.views()[0]!.state).toBe('connecting');
    // an edited command asks again
    const edited = mcpServers(
      { cwd: dir, mcpServers: [{ name: 'f', file: join(dir, '.agentrc'), entry: { command: process.execPath, args: [FAILING, '--x'] } }] },
      process.env,
      () => false,
      join(dir, 'home'),
    );
    const changed = new McpManager({
      entries: edited,
      config: McpSchema.parse({}),
      env: process.env,
      isSecret: () => false,
      trust,
      projectDir: dir,
      contextWindow: 200_000,
      countSpecs: () => 1,
      register: (t) => [...t],
    });
    expect(changed.views()[0]!.state).toBe('needs-approval');
    expect(changed.awaitingApproval()[0]!.changed).toBe(true);
  });

  it('lists every page, refreshes every page on tools/list_changed, and skips the invalid schema', async () => {
    const { m, notices } = manager(
      { f: { command: process.execPath, args: [FAILING], env: { TOOLS: '120', PAGE: '25' } } },
      { trustProject: true, deferAboveTokens: 1_000_000 },
    );
    m.start();
    await m.ready(10_000);
    expect(m.views()[0]!.tools).toBe(126); // 120 generated + echo, crash, hang, big, grow, env (bad_schema skipped)
    expect(notices.some((n) => n.includes('"bad_schema" skipped'))).toBe(true);
    const before = m.toolSet();
    expect(m.toolSet()).toBe(before); // unchanged: the same definitions, byte for byte
    await m.call('f', 'grow', {}, signal());
    await until(() => m.views()[0]!.tools === 176);
    expect(m.views()[0]!.tools).toBe(176);
    expect(m.toolSet()).not.toBe(before);
    expect(m.toolSet().tools.some((t) => t.name === 'mcp__f__tool_169')).toBe(true);
  });

  it('a crash is reported and the server restarts on its next use; a call that never answers times out', async () => {
    const { m, notices } = manager({ f: { command: process.execPath, args: [FAILING], toolTimeoutMs: 800 } }, { trustProject: true });
    m.start();
    await m.ready(10_000);
    const crashed = await m.call('f', 'crash', {}, signal());
    expect(crashed.isError).toBe(true);
    await until(() => m.views()[0]!.state === 'failed');
    expect(notices.join('\n')).toContain('crashing on purpose');
    const after = await m.call('f', 'echo', { text: 'back' }, signal());
    expect(after).toEqual({ content: 'echo: {"text":"back"}', isError: false });
    const hung = await m.call('f', 'hang', {}, signal());
    expect(hung).toMatchObject({ isError: true });
    expect(hung.content).toContain('timed out after 0.8s');
  });

  it('close() kills a server that ignores the end of its input and SIGTERM, within about a second', async () => {
    const { m } = manager({ s: { command: process.execPath, args: [FAILING], env: { STUBBORN: '1' } } }, { trustProject: true });
    m.start();
    await m.ready(10_000);
    const env = await m.call('s', 'env', {}, signal());
    expect(env.content).not.toContain('ANTHROPIC');
    const pid = Number(/^pid (\d+)/.exec(env.content)![1]);
    const t0 = Date.now();
    await m.close();
    expect(Date.now() - t0).toBeLessThan(2_500);
    // gone (a zombie of an exited child counts as gone: signal 0 still reaches it, so ask ps)
    const { spawnSync } = await import('node:child_process');
    await until(
      () =>
        !spawnSync('ps', ['-o', 'stat=', '-p', String(pid)])
          .stdout.toString()
          .trim()
          .replace(/^Z.*/, ''),
      1_000,
    );
    expect(
      spawnSync('ps', ['-o', 'stat=', '-p', String(pid)])
        .stdout.toString()
        .trim()
        .replace(/^Z.*/, ''),
    ).toBe('');
  });

  it('a second reference server: filesystem, its readOnlyHint tools run without asking only with mcp.allowReadOnly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-fs-'));
    const entry = { command: process.execPath, args: [FILESYSTEM, dir] };
    const strict = manager({ fs: entry }, { trustProject: true });
    strict.m.start();
    await strict.m.ready(15_000);
    expect(strict.m.views()[0]).toMatchObject({ state: 'connected' });
    expect(strict.m.toolSet().tools.every((t) => !traitsOf(t).readOnly)).toBe(true);
    const lenient = manager({ fs: entry }, { trustProject: true, allowReadOnly: true });
    lenient.m.start();
    await lenient.m.ready(15_000);
    const read = lenient.m.toolSet().tools.find((t) => t.name === 'mcp__fs__list_allowed_directories');
    expect(read && traitsOf(read)).toMatchObject({ readOnly: true, mutating: false });
    const write = lenient.m.toolSet().tools.find((t) => t.name === 'mcp__fs__write_file');
    expect(write && traitsOf(write)).toMatchObject({ readOnly: false, mutating: true });
    const out = await lenient.m.call('fs', 'list_allowed_directories', {}, signal());
    expect(out.content).toContain(dir.split('/').at(-1));
  });

  it('defers above the threshold: a catalog well under 15% of the definitions', async () => {
    const { m } = manager({ f: { command: process.execPath, args: [FAILING], env: { TOOLS: '300' } } }, { trustProject: true });
    m.start();
    await m.ready(10_000);
    const set = m.toolSet();
    expect(set.deferred).toBe(true);
    expect(set.tools.map((t) => t.name)).toEqual(['McpSchemas', 'McpCall']);
    expect(set.sentTokens / set.fullTokens).toBeLessThan(0.15);
    expect(set.system).toContain('McpSchemas');
  });
});

describe('/mcp', () => {
  it('lists state, tools and tokens; disable takes the tools away, enable and reconnect bring them back', async () => {
    const { mcpCommand, mcpStatus } = await import('../../src/commands/mcp.js');
    const { m } = manager(
      { f: { command: process.execPath, args: [FAILING] }, broken: { command: process.execPath, args: ['${NOT_SET_ANYWHERE}'] } },
      { trustProject: true },
    );
    m.start();
    await m.ready(10_000);
    const list = mcpCommand(m, '');
    expect(list).toMatch(/f\s+stdio\s+connected\s+9 tools, [\d,]+ tokens/);
    expect(list).toMatch(/broken\s+stdio\s+failed/);
    expect(list).toContain('NOT_SET_ANYWHERE is not set');
    expect(mcpStatus(m)).toBe('MCP 1✓ · 1 failed');
    mcpCommand(m, 'disable f');
    expect(m.toolSet().tools).toEqual([]);
    expect(mcpStatus(m)).toBe('MCP 0✓ · 1 failed');
    mcpCommand(m, 'enable f');
    await m.ready(10_000);
    expect(m.toolSet().tools.length).toBe(9);
    expect(mcpCommand(m, 'reconnect f')).toContain('Reconnecting');
    const f = (): string | undefined => m.views().find((v) => v.name === 'f')?.state;
    expect(f()).toBe('connected');
    await until(() => f() === 'connecting');
    await until(() => f() === 'connected');
    expect(f()).toBe('connected');
    expect(m.toolSet().tools.length).toBe(9);
    expect(() => mcpCommand(m, 'reconnect nosuch')).toThrow('the servers are broken, f');
  }, 20_000);
});

describe('server instructions', () => {
  it('go into the system section, capped at mcp.instructionsChars', async () => {
    const { EVERYTHING } = await import('./everything.js');
    const { m } = manager({ ev: { command: process.execPath, args: [EVERYTHING, 'stdio'] } }, { trustProject: true, instructionsChars: 200 });
    m.start();
    await m.ready(10_000);
    const system = m.toolSet().system;
    expect(system).toContain('## ev\n');
    expect(system).toContain('(cut at 200 characters)');
    expect(system.length).toBeLessThan(800);
  }, 20_000);
});

describe('McpManager over SSE (old servers)', () => {
  it('connects to server-everything over SSE and calls a tool', async () => {
    const old = await startEverything('sse');
    try {
      const { m } = manager({ old: { type: 'sse', url: old.url } }, { trustProject: true });
      m.start();
      await m.ready(10_000);
      expect(m.views()[0]).toMatchObject({ state: 'connected', transport: 'sse' });
      expect(await m.call('old', 'echo', { message: 'over sse' }, signal())).toEqual({ content: 'Echo: over sse', isError: false });
    } finally {
      old.stop();
    }
  }, 30_000);
});
