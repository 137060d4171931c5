import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { traitsOf } from '../../src/tools/kinds.js';
import { McpSchema } from '../../src/config/schema.js';
import { mcpServers } from '../../src/mcp/config.js';
import { McpManager } from '../../src/mcp/manager.js';
import { ProjectTrust } from '../../src/trust/projectTrust.js';
import type { McpServerFileEntry } from '../../src/config/schema.js';
import { createServer, type Server } from 'node:http';
import { childGroups } from '../../src/processes/groups.js';
import type { ConnectionEvents, McpConnection } from '../../src/mcp/connection.js';
import { FAST_PHASE_MS, McpUnreachedError, reconnectDelay } from '../../src/mcp/reconnect.js';
import { EVERYTHING, freePort, startEverything } from './everything.js';
import { tempDir } from '../tempDirs.js';
import { processState } from '../processTable.js';

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
  const dir = tempDir('mcp-manager-');
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

/**
 * The failed attempts of a server being reconnected, as the manager told its listeners (each
 * change of state), so that a test checks which attempt brought it back rather than how long the
 * attempts took: starting a server costs ~0.7 CPU-s, seconds of wall time on a loaded machine.
 */
function failedAttempts(m: McpManager): () => number {
  let most = 0;
  m.on(() => {
    most = Math.max(most, m.views()[0]!.down?.attempts ?? 0);
  });
  return () => most;
}

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

  it('a crash is reported and the server comes back by itself, its tools listed meanwhile; a call that never answers times out', async () => {
    const { m, notices } = manager({ f: { command: process.execPath, args: [FAILING], toolTimeoutMs: 800 } }, { trustProject: true });
    const states: string[] = [];
    m.on(() => states.push(m.views()[0]!.state));
    m.start();
    await m.ready(10_000);
    const tools = m.toolSet();
    const crashed = await m.call('f', 'crash', {}, signal());
    expect(crashed.isError).toBe(true);
    expect(crashed.content).toContain('stopped during the call');
    // reconnecting, tools still listed (the same definitions), then connected again without any call
    expect(states).toContain('reconnecting');
    expect(m.toolSet()).toBe(tools);
    await until(() => m.views()[0]!.state === 'connected', 5_000);
    expect(m.views()[0]!.state).toBe('connected');
    expect(m.toolSet()).toBe(tools);
    expect(notices.join('\n')).toContain('crashing on purpose');
    expect(notices.join('\n')).toMatch(/MCP server "f" is back \(reconnected after [\d.]+s\)/);
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
    // gone (a zombie of an exited child counts as gone: signal 0 still reaches it, so read its state)
    const gone = (): boolean => [undefined, 'Z', 'X'].includes(processState(pid));
    await until(gone, 1_000);
    expect(gone()).toBe(true);
  });

  it('a second reference server: filesystem, its readOnlyHint tools run without asking only with mcp.allowReadOnly', async () => {
    const dir = tempDir('mcp-fs-');
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
    const { mcpCommand, mcpStatus } = await import('../../src/mcp/command.js');
    const { m } = manager(
      { f: { command: process.execPath, args: [FAILING] }, broken: { command: process.execPath, args: ['${NOT_SET_ANYWHERE}'] } },
      { trustProject: true },
    );
    m.start();
    await m.ready(10_000);
    const list = await mcpCommand(m, '');
    expect(list).toMatch(/f\s+stdio\s+connected\s+9 tools, [\d,]+ tokens/);
    expect(list).toMatch(/broken\s+stdio\s+failed/);
    expect(list).toContain('NOT_SET_ANYWHERE is not set');
    expect(mcpStatus(m)).toBe('MCP 1✓ · 1 failed');
    await mcpCommand(m, 'disable f');
    expect(m.toolSet().tools).toEqual([]);
    expect(mcpStatus(m)).toBe('MCP 0✓ · 1 failed');
    await mcpCommand(m, 'enable f');
    await m.ready(10_000);
    expect(m.toolSet().tools.length).toBe(9);
    // /mcp reconnect says what it did (it used to say only "Reconnecting…" and return before anything happened)
    const states: string[] = [];
    m.on(() => states.push(m.views().find((v) => v.name === 'f')!.state));
    expect(await mcpCommand(m, 'reconnect f')).toMatch(/^MCP server "f" reconnected in [\d.]+ s: 9 tools, a new process\.$/);
    expect(states).toContain('reconnecting');
    expect(m.views().find((v) => v.name === 'f')?.state).toBe('connected');
    expect(m.toolSet().tools.length).toBe(9);
    expect(await mcpCommand(m, 'reconnect broken').catch((e: Error) => e.message)).toContain('cannot be reconnected');
    await expect(mcpCommand(m, 'reconnect nosuch')).rejects.toThrow('the servers are broken, f');
  }, 20_000);
});

describe('server instructions', () => {
  it('go into the system section, capped at mcp.instructionsChars', async () => {
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

describe('a server that cannot start', () => {
  it('a mistyped script, nothing listening, an HTTP 404 and a server that exits at start: each failed with a named error, the others still run', async () => {
    // an HTTP server that answers 404 to everything (a wrong path on a real host)
    const notFound: Server = createServer((_q, res) => {
      res.statusCode = 404;
      res.setHeader('content-type', 'text/html');
      // a framework's error page: the notice names its title in one line, never the page
      res.end(
        `<!DOCTYPE html>\n<html>\n<head>\n<title>404 Not Found</title>\n<style>body { color: red }</style>\n</head>\n<body>\n${'<p>no MCP here</p>\n'.repeat(20)}</body>\n</html>\n`,
      );
    });
    await new Promise<void>((r) => notFound.listen(0, '127.0.0.1', () => r()));
    const port404 = (notFound.address() as { port: number }).port;
    const nobody = await freePort();
    try {
      const { m, notices } = manager(
        {
          typo: { command: process.execPath, args: ['/nonexistent/servr.js'] },
          nothing: { type: 'http', url: `http://127.0.0.1:${nobody}/mcp` },
          missing: { type: 'http', url: `http://127.0.0.1:${port404}/mcp` },
          exits: { command: process.execPath, args: ['-e', 'process.exit(3)'] },
          fine: { command: process.execPath, args: [FAILING] },
        },
        { trustProject: true },
      );
      // before the fix the `lost` callback ran before `conn` was assigned: an uncaught ReferenceError here
      m.start();
      await m.ready(10_000);
      const byName = Object.fromEntries(m.views().map((v) => [v.name, v]));
      expect(byName['fine']!.state).toBe('connected');
      for (const name of ['typo', 'nothing', 'missing', 'exits']) expect(byName[name]!.state, name).toBe('failed');
      expect(byName['typo']!.error).toMatch(
        /the process exited with code 1 before it answered; its stderr said: .*Cannot find module '\/nonexistent\/servr\.js'/,
      );
      expect(byName['nothing']!.error).toContain(`nothing answers at http://127.0.0.1:${nobody}/mcp`);
      expect(byName['missing']!.error).toContain(`http://127.0.0.1:${port404}/mcp answered HTTP 404`);
      // mutation: the body as it came (sliced) keeps the page's lines and tags
      expect(byName['missing']!.error).toMatch(/answered HTTP 404[^\n]* \(404 Not Found\)$/);
      expect(byName['exits']!.error).toBe('the process exited with code 3 before it answered');
      for (const name of ['typo', 'nothing', 'missing', 'exits'])
        expect(
          notices.some((n) => n.startsWith(`error: MCP server "${name}" could not start: `)),
          name,
        ).toBe(true);
      // a failed server is never retried by itself: no process is left starting over and over
      expect(
        childGroups()
          .filter((g) => g.kind === 'mcp')
          .map((g) => g.label),
      ).toEqual(['fine']);
      expect(m.toolSet().tools.every((t) => t.name.startsWith('mcp__fine__'))).toBe(true);
    } finally {
      notFound.close();
    }
  }, 20_000);
});

describe('a server that dies mid-session', () => {
  it('stdio (server-everything): killed, it is back within 5 s as a new process, its tools listed meanwhile, a call waiting for it', async () => {
    const { m, notices } = manager({ ev: { command: process.execPath, args: [EVERYTHING, 'stdio'] } }, { trustProject: true });
    m.start();
    await m.ready(15_000);
    const tools = m.toolSet();
    expect(tools.tools.some((t) => t.name === 'mcp__ev__echo')).toBe(true);
    const first = childGroups().find((g) => g.kind === 'mcp' && g.label === 'ev')!;
    const failed = failedAttempts(m);
    process.kill(-first.pgid, 'SIGKILL');
    await until(() => m.views()[0]!.state === 'reconnecting', 10_000);
    expect(m.views()[0]!.state).toBe('reconnecting');
    expect(m.toolSet()).toBe(tools);
    // a call meanwhile waits for the reconnect instead of failing, and the first attempt (the call's,
    // started at once) brought it back: none failed (how long the new process took to start is the
    // machine's load, not the manager's)
    const echo = await m.call('ev', 'echo', { message: 'after the kill' }, signal());
    expect(echo).toEqual({ content: 'Echo: after the kill', isError: false });
    expect(m.views()[0]!.state).toBe('connected');
    expect(failed()).toBe(0);
    expect(childGroups().find((g) => g.kind === 'mcp' && g.label === 'ev')!.pgid).not.toBe(first.pgid);
    expect(notices.join('\n')).toMatch(/MCP server "ev" stopped \(the process was killed by SIGKILL\); reconnecting/);
  }, 30_000);

  it("a tool's progress notifications reach the call's listener as one line rewritten in place (issue 30 item 14)", async () => {
    // A server whose tool sends two notifications and answers only once the test saw both: a real
    // server's (server-everything's long-running operation) sends them on a timer, and under load the
    // second one could come in the same read as the result, which the SDK handles first (a
    // notification a tick later), so it never reached the listener: a race, not the behaviour.
    const release = join(tempDir('mcp-progress-'), 'release');
    const server = `
      const { existsSync } = require('node:fs');
      const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
      require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
        const msg = JSON.parse(line);
        if (msg.id === undefined) return;
        const reply = (result) => send({ jsonrpc: '2.0', id: msg.id, result });
        if (msg.method === 'initialize') return reply({ protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'steps', version: '1' } });
        if (msg.method === 'tools/list') return reply({ tools: [{ name: 'steps', description: 'Three steps.', inputSchema: { type: 'object', properties: {} } }] });
        if (msg.method !== 'tools/call') return reply({});
        const progressToken = msg.params._meta?.progressToken;
        const step = (progress) => progressToken !== undefined && send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress, total: 3 } });
        step(1);
        step(2);
        const wait = setInterval(() => {
          if (!existsSync(${JSON.stringify(release)})) return;
          clearInterval(wait);
          step(3);
          reply({ content: [{ type: 'text', text: 'three steps done' }] });
        }, 20);
      });`;
    const { m } = manager({ steps: { command: process.execPath, args: ['-e', server] } }, { trustProject: true });
    m.start();
    await m.ready(15_000);
    const progress: string[] = [];
    // mutation: a call without the listener (no progress token) gets no notifications and this stays empty
    // through the tool the model calls, as runTools calls it (ctx.onProgress feeds the live row)
    const tool = m.toolSet().tools.find((t) => t.name === 'mcp__steps__steps')!;
    const out = tool.run(tool.parse({}), { cwd: process.cwd(), signal: signal(), onProgress: (t) => progress.push(t) });
    // the call is still waiting for its answer: the two notifications it got so far are the listener's
    await until(() => progress.length >= 2, 10_000);
    writeFileSync(release, '');
    expect((await out).content).toContain('three steps done');
    // the last one may come after the result is handled (the SDK handles notifications a tick later)
    expect(progress.slice(0, 2)).toEqual(['progress 1/3', '\rprogress 2/3']);
  }, 30_000);

  it('stdio: back by itself, with no call', async () => {
    const { m } = manager({ ev: { command: process.execPath, args: [EVERYTHING, 'stdio'] } }, { trustProject: true });
    m.start();
    await m.ready(15_000);
    const failed = failedAttempts(m);
    process.kill(-childGroups().find((g) => g.kind === 'mcp' && g.label === 'ev')!.pgid, 'SIGKILL');
    await until(() => m.views()[0]!.state === 'reconnecting', 10_000);
    expect(m.views()[0]!.state).toBe('reconnecting');
    // mutation: no retry timer (only a call reconnects) leaves it reconnecting
    await until(() => m.views()[0]!.state === 'connected', 20_000);
    expect(m.views()[0]!.state).toBe('connected');
    // back on the first attempt, the one FIRST_DELAY_MS after the loss (reconnect.ts): none failed
    expect(failed()).toBe(0);
  }, 40_000);

  it('streamable HTTP (server-everything): restarted at the same address, it is back within 5 s in a new session; the tools stay listed', async () => {
    let web = await startEverything('streamableHttp');
    try {
      const { m, notices } = manager({ web: { type: 'http', url: web.url } }, { trustProject: true });
      m.start();
      await m.ready(15_000);
      expect(m.views()[0]!.state).toBe('connected');
      const tools = m.toolSet();
      const failed = failedAttempts(m);
      await web.stop();
      // its event stream broke and a ping finds nobody: reconnecting, not "MCP 1✓"
      await until(() => m.views()[0]!.state === 'reconnecting', 10_000);
      expect(m.views()[0]!.state).toBe('reconnecting');
      expect(m.toolSet()).toBe(tools);
      web = await startEverything('streamableHttp', web.port);
      const failedBeforeUp = failed();
      await until(() => m.views()[0]!.state === 'connected', 20_000);
      expect(m.views()[0]!.state).toBe('connected');
      // found again by the first attempt that started once it was up (one under way at that moment
      // may still have failed), and no attempt waits longer than 5 s while it has been down for less
      // than a minute: back within 5 s of coming back, however long the restart itself took
      expect(failed() - failedBeforeUp).toBeLessThanOrEqual(1);
      for (let n = 0; n < 20; n++) expect(reconnectDelay(n, FAST_PHASE_MS - 1)).toBeLessThanOrEqual(5_000);
      expect(notices.join('\n')).toMatch(/MCP server "web" is back \(reconnected after [\d.]+s, in a new session\)/);
      expect(await m.call('web', 'get-sum', { a: 1, b: 2 }, signal())).toMatchObject({ isError: false, content: expect.stringContaining('3') });
    } finally {
      await web.stop();
    }
  }, 60_000);

  it('streamable HTTP: a call to a server that forgot the session ("No valid session ID") reconnects and is sent again, once', async () => {
    let web = await startEverything('streamableHttp');
    try {
      const { m } = manager({ web: { type: 'http', url: web.url } }, { trustProject: true });
      m.start();
      await m.ready(15_000);
      // restarted between two calls, faster than the broken stream is noticed
      await web.stop();
      web = await startEverything('streamableHttp', web.port);
      const sum = await m.call('web', 'get-sum', { a: 40, b: 2 }, signal());
      expect(sum).toMatchObject({ isError: false, content: expect.stringContaining('42') });
      expect(m.views()[0]!.state).toBe('connected');
    } finally {
      await web.stop();
    }
  }, 40_000);
});

describe('a call the server did not get', () => {
  /** A manager over scripted connections: the nth connection's call answers `answers[n]` ('unreached': the server did not get it). */
  function scripted(answers: Array<'ok' | 'unreached'>): { m: McpManager; calls: number[] } {
    const calls: number[] = [];
    let n = 0;
    const connect = async (_e: unknown, _env: unknown, events: ConnectionEvents): Promise<McpConnection> => {
      const index = n++;
      let gone: string | undefined;
      const conn = {
        tools: [{ name: 't', inputSchema: { type: 'object' } }],
        instructions: undefined,
        sessionId: `session-${index}`,
        get gone() {
          return gone;
        },
        close: async () => {},
        call: async () => {
          calls.push(index);
          if (answers[index] === 'ok') return { content: [{ type: 'text', text: `answered by connection ${index}` }] };
          // as McpConnection does: the connection is lost, then the error says the request never arrived
          gone = 'the server no longer knows this session (HTTP 400)';
          events.lost(gone);
          throw new McpUnreachedError(gone);
        },
      };
      return conn as unknown as McpConnection;
    };
    const dir = tempDir('mcp-scripted-');
    const m = new McpManager({
      entries: mcpServers(
        { cwd: dir, mcpServers: [{ name: 'web', file: join(dir, '.agentrc'), entry: { type: 'http', url: 'http://127.0.0.1:9/mcp' } }] },
        {},
        () => false,
        join(dir, 'home'),
      ),
      config: McpSchema.parse({ trustProject: true }),
      env: {},
      isSecret: () => false,
      trust: new ProjectTrust(join(dir, 'trust.json')),
      projectDir: dir,
      contextWindow: 200_000,
      countSpecs: () => 1,
      register: (t) => [...t],
      connect,
    });
    managers.push(m);
    return { m, calls };
  }

  // sending it again is what a restarted HTTP server needs (it answers "No valid session ID" to the old session)
  it('is sent again once, on the new connection', async () => {
    const { m, calls } = scripted(['unreached', 'ok']);
    m.start();
    await m.ready(1_000);
    expect(await m.call('web', 't', {}, signal())).toEqual({ content: 'answered by connection 1', isError: false });
    expect(calls).toEqual([0, 1]);
    expect(m.views()[0]!.state).toBe('connected');
  });

  // never twice: the third connection would answer, but a call is sent at most two times
  it('fails clearly when the new connection does not get it either', async () => {
    const { m, calls } = scripted(['unreached', 'unreached', 'ok']);
    m.start();
    await m.ready(1_000);
    const out = await m.call('web', 't', {}, signal());
    expect(out.isError).toBe(true);
    expect(out.content).toBe(
      'MCP server "web" did not get the call (the server no longer knows this session (HTTP 400)). It is being reconnected in the background; try again shortly.',
    );
    expect(calls).toEqual([0, 1]);
  });
});
