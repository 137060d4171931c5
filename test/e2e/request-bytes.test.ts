import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../fake-server/server.js';
import { runAgent, workspace, type ProviderKind, type Workspace } from './inprocess.js';

// The request bodies a short scripted session sends, byte for byte, as recorded in
// test/e2e/fixtures/requests/: the system prompt, the tool list (built-in tools in registry order,
// the Task tool, an MCP server's tools), the history with a sub-agent's report, parallel reads,
// a Bash call with a PostToolUse hook's note, an MCP call, and a resumed second turn with an
// @mention. The tool list and the system prompt head the provider's cached prefix: a refactor
// that reorders the tools, rewords a description or moves a section fails here, on the
// Anthropic Messages, OpenAI Responses and Chat Completions wires alike.
//
// What differs between runs is replaced before the comparison: the workspace's temporary path,
// the platform, today's date, session ids, the fake's thinking signatures (bound to the bytes
// before them, which hold the path) and its token counts of the child's requests (likewise). Each run gets its own fake server, so the ids it hands out
// (toolu_fake_3_0, rs_fake_2_0 …) follow the script alone.
//
// To record anew after a change that is meant to alter the requests:
//   AGENT_RECORD_REQUESTS=1 npx vitest run test/e2e/request-bytes.test.ts
// and read the diff of the fixtures before committing them.
//
// Mutations that fail it: swapping two tools in createTools (every body), a changed character in
// a tool description or the system prompt, the MCP section placed before the tools' list, the hook
// note's header reworded, the sub-agent's tool subset in another order (the child's request).

const FIXTURES = resolve(__dirname, 'fixtures', 'requests');
const FAILING = resolve(__dirname, '..', 'mcp', 'failing-server.mjs');
const RECORD = process.env.AGENT_RECORD_REQUESTS === '1';

interface Wire {
  provider: ProviderKind;
  model: string;
  /** .agentrc entries of this wire (the OpenAI API that serves it). */
  rc: Record<string, unknown>;
}

const WIRES: Record<string, Wire> = {
  anthropic: { provider: 'anthropic', model: 'claude-sonnet-5-5', rc: {} },
  responses: { provider: 'openai', model: 'gpt-5.4', rc: { api: 'responses' } },
  chat: { provider: 'openai', model: 'gpt-4o', rc: {} },
};

let server: FakeServer;
beforeEach(async () => {
  server = await startFakeServer();
});
afterEach(async () => {
  await server.close();
});

/** The session: a Task call (the child answers), two parallel reads, Bash (a hook notes it), an MCP call; then a resumed turn with an @mention. */
async function runSession(wire: Wire): Promise<Workspace> {
  const ws = workspace({}, { suiteThinking: false });
  writeFileSync(join(ws.dir, 'notes.md'), '# Notes\n\nalpha line\nbeta line\ngamma line\n');
  mkdirSync(join(ws.dir, 'src'));
  writeFileSync(join(ws.dir, 'src', 'main.ts'), 'export const alpha = 1;\n');
  // Grep lists the newest file first: one order for every run
  utimesSync(join(ws.dir, 'notes.md'), new Date('2024-01-01'), new Date('2024-01-01'));
  writeFileSync(
    join(ws.dir, '.agentrc'),
    JSON.stringify({
      retry: { baseDelayMs: 5, maxDelayMs: 50 },
      ...wire.rc,
      mcp: { startupMs: 20_000 },
      hooks: { PostToolUse: [{ matcher: 'Bash', command: 'cat > /dev/null; echo HOOK-NOTE-1' }] },
    }),
  );
  writeFileSync(join(ws.dir, '.mcp.json'), JSON.stringify({ mcpServers: { f: { command: 'node', args: [FAILING], env: { TOOLS: '1' } } } }));
  server.enqueue(
    { toolCalls: [{ name: 'Task', input: { description: 'Find alpha', prompt: 'Where is alpha defined? Report the file.' } }] },
    { text: 'alpha is defined in src/main.ts.' },
    {
      text: 'Reading both.',
      toolCalls: [
        { name: 'FileRead', input: { path: 'notes.md' } },
        { name: 'Grep', input: { pattern: 'alpha' } },
      ],
    },
    { toolCalls: [{ name: 'Bash', input: { command: 'echo from-bash', description: 'Say hello' } }] },
    { toolCalls: [{ name: 'mcp__f__echo', input: { text: 'from mcp' } }] },
    { text: 'All done.' },
  );
  const flags = ['--model', wire.model, '--permission-mode', 'allow', '--mcp-trust', '--hooks-trust'];
  const opts = { ws, server, provider: wire.provider, timeoutMs: 40_000 };
  const first = await runAgent(['-p', 'Look around.', ...flags], opts);
  expect(first.code, first.stderr).toBe(0);
  server.enqueue({ text: 'Seen.' });
  const second = await runAgent(['-p', 'And this one: @notes.md', '--continue', ...flags], opts);
  expect(second.code, second.stderr).toBe(0);
  return ws;
}

/** The raw bodies of the model requests, with what differs between runs replaced. */
function recorded(ws: Workspace): string {
  const today = new Date().toISOString().slice(0, 10);
  const platform = `${process.platform} (${process.arch})`;
  return server.requests
    .map((r) => {
      expect(r.response?.status, `${r.path}: ${r.response?.errorMessage ?? ''}`).toBe(200);
      return `${r.method} ${r.path}\n${(r.raw ?? '')
        .split(ws.root)
        .join('<root>')
        .split(platform)
        .join('<platform>')
        .split(today)
        .join('<today>')
        .replace(/"signature":"[^"]*"/g, '"signature":"<signature>"')
        .replace(/\bs_[0-9a-z]{12,}/g, '<session>')
        // the child's tokens, as the fake counts its requests (which hold the temporary path)
        .replace(/· [\d,]+ tokens\./g, '· <n> tokens.')}\n`;
    })
    .join('\n');
}

describe('the request bytes of a scripted session', () => {
  for (const [name, wire] of Object.entries(WIRES)) {
    it(`are the recorded ones on ${name}`, async () => {
      const ws = await runSession(wire);
      const got = recorded(ws);
      const file = join(FIXTURES, `${name}.txt`);
      if (RECORD) {
        mkdirSync(FIXTURES, { recursive: true });
        writeFileSync(file, got);
      }
      expect(existsSync(file), `${file} is missing: record it with AGENT_RECORD_REQUESTS=1`).toBe(true);
      // 7 requests: the parent's first, the child's, four more of the parent's turn, the resumed turn's one
      expect(server.requests.length).toBe(7);
      expect(got).toBe(readFileSync(file, 'utf8'));
    }, 60_000);
  }
});
