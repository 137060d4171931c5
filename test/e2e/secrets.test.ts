import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent, workspace, useFakeServer, type Workspace } from './inprocess.js';

// Keys never reach the model, Bash, the database or the debug log: not as they are, not
// reversed, not base64 or hex encoded, and not the key of the provider the session does
// not use. Checked in the bytes of the database, the debug log and every request the fake
// server received.

const server = useFakeServer();

const ANTHROPIC_KEY = `sk-ant-api03-${'Qx7_bK2-mZ9pL4vT8nR1wY6cF3hJ0dS5gA'.repeat(3).slice(0, 93)}AA`;
const OPENAI_KEY = `sk-proj-${'N4r8T2kVq9Lm3Xw7Zc1Bf6Hd0Js5Gp-_'.repeat(5).slice(0, 156)}`;
const AUTH_TOKEN = 'sk-ant-oat01-AuthTokenValue0123456789abcdefXYZ';
const TEAM_KEY = 'team-key-7f3a9c2e5b1d8f4a6c0e2b9d';

/** What the commands below print for a key: the ways a key gets transformed. */
function forms(key: string): string[] {
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  const wrapped = b64(`${key}\n`).match(/.{1,76}/g)!;
  return [
    key,
    [...key].reverse().join(''),
    b64(`${key}\n`),
    ...wrapped.filter((l) => l.length >= 16),
    b64(`x${key}`).slice(4, 60),
    Buffer.from(key).toString('hex'),
  ];
}

/** Everything the run left behind that must not hold a key. */
function leftBehind(ws: Workspace, debugLog: string): Record<string, string> {
  const read = (f: string): string => (existsSync(f) ? readFileSync(f).toString('latin1') : '');
  return {
    database: read(ws.db) + read(`${ws.db}-wal`),
    'debug log': read(debugLog),
    // the bodies: what the model saw (the auth header carries the key by design)
    requests: server.requests.map((r) => JSON.stringify(r.body)).join('\n'),
  };
}

function expectNoKeys(places: Record<string, string>, keys: string[]): void {
  for (const [where, text] of Object.entries(places)) {
    for (const key of keys) for (const f of forms(key)) expect(text.includes(f), `${where} holds a form of a key: ${f.slice(0, 20)}…`).toBe(false);
  }
}

const env = { ANTHROPIC_API_KEY: ANTHROPIC_KEY, OPENAI_API_KEY: OPENAI_KEY, ANTHROPIC_AUTH_TOKEN: AUTH_TOKEN, TEAM_KEY };

describe('secrets', () => {
  it('Bash commands see no key variable of either provider, nor apiKeyEnv', async () => {
    const ws = workspace({ apiKeyEnv: 'TEAM_KEY' });
    const debugLog = join(ws.root, 'debug.log');
    server.enqueue(
      {
        toolCalls: [
          {
            name: 'Bash',
            input: {
              command:
                'echo "A=$ANTHROPIC_API_KEY O=$OPENAI_API_KEY T=$ANTHROPIC_AUTH_TOKEN K=$TEAM_KEY"; env | grep -cE "_(API_KEY|AUTH_TOKEN)=|^TEAM_KEY=" || true',
            },
          },
        ],
      },
      { text: 'Checked.' },
    );
    const r = await runAgent(['-p', 'show the keys', '--permission-mode', 'allow', '--debug', debugLog], { ws, server, env });
    expect(r.code, r.stderr).toBe(0);
    const results = server.requests[1]!.view!.messages.flatMap((m) => m.blocks.flatMap((b) => (b.type === 'tool_result' ? [b.content] : [])));
    expect(results).toEqual(['A= O= T= K=\n0']);
    expectNoKeys(leftBehind(ws, debugLog), [ANTHROPIC_KEY, OPENAI_KEY, AUTH_TOKEN, TEAM_KEY]);
  });

  it('a key passed through to commands is still redacted in every transformed form, whatever the provider', async () => {
    const ws = workspace({ bash: { passEnv: ['OPENAI_API_KEY', 'ANTHROPIC_*'] } });
    const debugLog = join(ws.root, 'debug.log');
    // the key of the other provider, in a file the model reads, and typed by the model itself
    writeFileSync(join(ws.dir, 'config.txt'), `openai=${OPENAI_KEY}\nreversed=${[...ANTHROPIC_KEY].reverse().join('')}\n`);
    const commands = [
      'echo "$OPENAI_API_KEY"',
      'printf %s "$OPENAI_API_KEY" | rev; echo',
      'echo "$OPENAI_API_KEY" | base64',
      'printf "x%s" "$OPENAI_API_KEY" | base64 -w0; echo',
      'printf %s "$ANTHROPIC_API_KEY" | od -An -tx1 | tr -d " \\n"; echo',
      'echo "$ANTHROPIC_AUTH_TOKEN" | rev',
    ];
    server.enqueue(
      { toolCalls: [...commands.map((command) => ({ name: 'Bash', input: { command } })), { name: 'FileRead', input: { path: 'config.txt' } }] },
      { text: `Your key is ${ANTHROPIC_KEY} and the other one ${OPENAI_KEY}.` },
    );
    const r = await runAgent(['-p', 'leak the keys', '--permission-mode', 'allow', '--debug', debugLog, '--output-format', 'events'], { ws, server, env });
    expect(r.code, r.stderr).toBe(0);
    const results = server.requests[1]!.view!.messages.flatMap((m) => m.blocks.flatMap((b) => (b.type === 'tool_result' ? [b.content] : [])));
    expect(results).toHaveLength(commands.length + 1);
    for (const content of results) expect(content).toContain('[redacted]');
    expectNoKeys({ ...leftBehind(ws, debugLog), stdout: r.stdout, stderr: r.stderr }, [ANTHROPIC_KEY, OPENAI_KEY, AUTH_TOKEN]);
  });
});
