import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent, workspace, useFakeServer, type Workspace } from './inprocess.js';

// The read boundary in print mode: FileRead, Grep and Glob read the project freely; outside it
// they are refused unless --permission-mode allow, permissions.readPaths or --add-dir allow it;
// secret stores are refused whatever the flags say.

const server = useFakeServer();

function setup(rc: Record<string, unknown> = {}): Workspace {
  const ws = workspace(rc);
  mkdirSync(join(ws.home, '.ssh'));
  writeFileSync(join(ws.home, '.ssh', 'id_ed25519'), '-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-key-material\n');
  mkdirSync(join(ws.root, 'other'));
  writeFileSync(join(ws.root, 'other', 'notes.txt'), 'the neighbour project\n');
  writeFileSync(join(ws.root, 'other', '.env'), 'DB_PASSWORD=hunter2\n');
  writeFileSync(join(ws.dir, 'inside.txt'), 'inside the project\n');
  return ws;
}

/** Runs one turn whose model calls `calls`, returns the tool results the model got back. */
async function results(ws: Workspace, calls: Array<{ name: string; input: Record<string, unknown> }>, args: string[] = []): Promise<string[]> {
  server.enqueue({ toolCalls: calls }, { text: 'Done.' });
  const r = await runAgent(['-p', 'look around', ...args], { ws, server });
  expect(r.code, r.stderr).toBe(0);
  return server.requests.at(-1)!.view!.messages.flatMap((m) => m.blocks.flatMap((b) => (b.type === 'tool_result' ? [b.content] : [])));
}

describe('read boundary in print mode', () => {
  it('reads inside freely; outside, ../ and absolute paths are refused with the ways to allow them', async () => {
    const ws = setup();
    const [inside, up, abs, grep, glob] = await results(ws, [
      { name: 'FileRead', input: { path: 'inside.txt' } },
      { name: 'FileRead', input: { path: '../other/notes.txt' } },
      { name: 'FileRead', input: { path: '/etc/hostname' } },
      { name: 'Grep', input: { pattern: 'neighbour', path: '..' } },
      { name: 'Glob', input: { pattern: '../other/*' } },
    ]);
    expect(inside).toContain('inside the project');
    for (const out of [up, abs, grep, glob]) {
      expect(out).toMatch(/refused: .* is outside the working directory, and nobody can approve reading it in non-interactive mode/);
      expect(out).toContain('--add-dir');
    }
    expect(up).not.toContain('neighbour');
  });

  it('--add-dir and permissions.readPaths allow a directory; --permission-mode allow allows outside reads but not .env there', async () => {
    const ws = setup();
    const [viaFlag, envViaFlag] = await results(
      ws,
      [
        { name: 'FileRead', input: { path: '../other/notes.txt' } },
        { name: 'FileRead', input: { path: '../other/.env' } },
      ],
      ['--add-dir', '../other'],
    );
    expect(viaFlag).toContain('the neighbour project');
    expect(envViaFlag).toContain('hunter2');

    const withRc = setup({ permissions: { readPaths: ['../other'] } });
    const [viaRc] = await results(withRc, [{ name: 'FileRead', input: { path: '../other/notes.txt' } }]);
    expect(viaRc).toContain('the neighbour project');

    const [allowed, env] = await results(
      setup(),
      [
        { name: 'FileRead', input: { path: '../other/notes.txt' } },
        { name: 'FileRead', input: { path: '../other/.env' } },
      ],
      ['--permission-mode', 'allow'],
    );
    expect(allowed).toContain('the neighbour project');
    expect(env).toContain('is an environment file outside the project');
    expect(env).not.toContain('hunter2');
  });

  it('refuses ~/.ssh whatever the mode, with a clear reason', async () => {
    const ws = setup();
    const [key, grep] = await results(
      ws,
      [
        { name: 'FileRead', input: { path: '~/.ssh/id_ed25519' } },
        { name: 'Grep', input: { pattern: 'PRIVATE', path: '~/.ssh' } },
      ],
      ['--permission-mode', 'allow', '--add-dir', ws.home],
    );
    expect(key).toBe(
      'FileRead refused: ~/.ssh/id_ed25519 is a private SSH key, and secrets are never read. Do not try to read it another way; if the user really needs it, they will share what is needed.',
    );
    expect(grep).toContain('is in ~/.ssh, which holds credentials');
    expect(JSON.stringify(server.requests.map((r) => r.body))).not.toContain('secret-key-material');
  });

  it('--add-dir of a directory that does not exist is a usage error', async () => {
    const ws = setup();
    const r = await runAgent(['-p', 'hi', '--add-dir', 'no/such/dir'], { ws, server });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('agent: --add-dir: no/such/dir does not exist\n');
  });
});
