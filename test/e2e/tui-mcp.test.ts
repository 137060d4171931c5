import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, workspace, useFakeServer } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';
import { EVERYTHING, startEverything, type HttpServer } from '../mcp/everything.js';

// MCP in a real terminal (tmux): the project's .mcp.json servers (a real stdio server and a real
// streamable-HTTP one) are put to the person in the approval prompt, the footer shows their
// state, the model calls a tool of each (asked like Bash; "always this tool"), the results reach
// the next request, /mcp lists them, and Esc cancels a call that hangs.

const server = useFakeServer();
const FAILING = resolve(__dirname, '..', 'mcp', 'failing-server.mjs');
let term: Tmux | undefined;
let web: HttpServer | undefined;
let httpUrl = '';

beforeAll(async () => {
  web = await startEverything('streamableHttp');
  httpUrl = web.url;
}, 60_000);
afterAll(() => {
  web?.stop();
});
afterEach(() => {
  term?.kill();
  term = undefined;
});

describe.skipIf(!hasTmux)('MCP servers in a real terminal', () => {
  it('approves project servers, calls a stdio and an HTTP tool, lists them with /mcp, and Esc cancels a hung call', async () => {
    const ws = workspace();
    writeFileSync(
      join(ws.dir, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          local: { command: 'node', args: [EVERYTHING, 'stdio'] },
          web: { type: 'http', url: httpUrl },
          stuck: { command: 'node', args: [FAILING] },
        },
      }),
    );
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-5'], cwd: ws.dir, env, height: 45 });
    await term.waitFor(`MCP server "local" from ${join(ws.dir, '.mcp.json')} asks to start; it would run`);
    // its own words (issue 30): no "wants to run", no note for the model, Esc does not "stop" anything
    const dialog = term.screen();
    expect(dialog).toContain('1. Run it, and remember for this project');
    expect(dialog).toContain('3. Do not run it');
    expect(dialog).toContain('esc: do not run it');
    expect(dialog).not.toMatch(/wants to run|deny and stop/);
    term.keys('Enter');
    await term.waitFor('MCP server "stuck" from');
    term.keys('Enter');
    await term.waitFor('MCP server "web" from');
    term.keys('2'); // this session only
    await term.waitFor('❯ 2. Run it for this session only');
    term.keys('Enter');
    await term.waitFor('MCP 3✓');

    server.enqueue(
      { toolCalls: [{ name: 'mcp__local__echo', input: { message: 'from the tui' } }] },
      { toolCalls: [{ name: 'mcp__web__get-sum', input: { a: 20, b: 22 } }] },
      { text: 'Both tools answered.' },
    );
    term.type('use the tools');
    term.keys('Enter');
    await term.waitFor('mcp__local__echo wants to run');
    term.keys('2'); // always this tool, for the session
    await term.waitFor('❯ 2. Allow mcp__local__echo for this session');
    term.keys('Enter');
    await term.waitFor('mcp__web__get-sum wants to run');
    term.keys('Enter');
    await term.waitFor('Both tools answered.');
    const results = server.requests.flatMap((r) => r.view?.messages.flatMap((m) => m.blocks) ?? []).filter((b) => b.type === 'tool_result');
    expect(results.some((b) => b.type === 'tool_result' && b.content === 'Echo: from the tui')).toBe(true);
    expect(results.some((b) => b.type === 'tool_result' && b.content.includes('42'))).toBe(true);

    term.type('/mcp');
    term.keys('Enter');
    await term.waitFor('/mcp reconnect <name>');
    const list = term.screen();
    expect(list).toMatch(/local\s+stdio\s+connected\s+1[36] tools/);
    expect(list).toMatch(/web\s+http\s+connected/);

    // Esc cancels a call that never answers; the session goes on
    server.enqueue({ toolCalls: [{ name: 'mcp__stuck__hang', input: {} }] });
    term.type('hang');
    term.keys('Enter');
    await term.waitFor('mcp__stuck__hang wants to run');
    term.keys('Enter');
    await term.waitFor('stuck: hang');
    await new Promise((r) => setTimeout(r, 500));
    term.keys('Escape');
    await term.waitFor('interrupted');
    server.enqueue({ text: 'still here' });
    term.type('hello again');
    term.keys('Enter');
    await term.waitFor('still here');
  }, 90_000);
});
