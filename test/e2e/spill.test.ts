import { utimesSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import { jsonResult, runAgent, workspace, type Workspace, useFakeServer } from './inprocess.js';
import { describeEachProvider } from './regime.js';

// Spilled tool outputs and the edit tracker across --continue, end to end in print mode: the
// built CLI, the real SDKs, the fake server validating every request.

const server = useFakeServer();

function toolResults(): string[] {
  const out: string[] = [];
  for (const q of server.requests) for (const m of q.view?.messages ?? []) for (const b of m.blocks) if (b.type === 'tool_result') out.push(b.content);
  return out;
}
const lastResults = (): string[] => {
  const q = server.requests.at(-1)!;
  return (q.view?.messages ?? []).flatMap((m) => m.blocks.flatMap((b) => (b.type === 'tool_result' ? [b.content] : [])));
};

describeEachProvider('spilled outputs and the tracker after --continue with %s', (provider) => {
  let ws: Workspace;
  beforeEach(() => {
    ws = workspace({ permissions: { mode: 'allow' } });
  });
  const run = (args: string[]) => runAgent(args, { ws, server, provider, timeoutMs: 60_000 });

  it('spills a 6,000-line output with its last line in view; Recall reads a range and a pattern exactly, after --resume and in a --fork', async () => {
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: 'seq 100001 106000' } }] }, { text: 'ran it' });
    const first = await run(['-p', 'run the numbers', '--output-format', 'json']);
    expect(first.code, first.stderr).toBe(0);
    const preview = toolResults().find((c) => c.startsWith('[output o1:'))!;
    expect(preview).toMatch(/^\[output o1: 6,000 lines, 41 KB; lines 1–40 and 5,961–6,000 shown/);
    expect(preview.trimEnd().endsWith('106000')).toBe(true);
    expect(preview.length).toBeLessThan(5_000);
    const id = String(jsonResult(first).session_id);

    server.enqueue(
      {
        toolCalls: [
          { name: 'Recall', input: { id: 'o1', offset: 3000, limit: 2 } },
          { name: 'Recall', input: { id: 'o1', pattern: '^10300[12]$', context: 0 } },
        ],
      },
      { text: 'read' },
    );
    const second = await run(['-p', 'read more', '--resume', id]);
    expect(second.code, second.stderr).toBe(0);
    const [range, grep] = lastResults().slice(-2);
    expect(range!.split('\n').slice(1, 3)).toEqual(['103000', '103001']);
    expect(grep!.split('\n').slice(1)).toEqual(['3001: 103001', '3002: 103002']);

    server.enqueue(
      {
        toolCalls: [
          { name: 'Recall', input: { id: 'o1', offset: 6000, limit: 1 } },
          { name: 'Recall', input: { id: 'o404' } },
          { name: 'Recall', input: { id: 'o1', pattern: '([' } },
        ],
      },
      { text: 'forked' },
    );
    const forked = await run(['-p', 'in a copy', '--resume', id, '--fork', '--output-format', 'json']);
    expect(forked.code, forked.stderr).toBe(0);
    expect(String(jsonResult(forked).session_id)).not.toBe(id);
    const [end, unknown, bad] = lastResults().slice(-3);
    expect(end).toContain('\n106000');
    expect(unknown).toContain('No archived item with id "o404"');
    expect(bad).toContain('not a valid regular expression');
  });

  it('Read, then --continue, then Edit of the unchanged file works; a file changed in between is refused as stale', async () => {
    writeFileSync(join(ws.dir, 'a.txt'), 'port = 3000\n');
    writeFileSync(join(ws.dir, 'b.txt'), 'host = here\n');
    server.enqueue(
      {
        toolCalls: [
          { name: 'FileRead', input: { path: 'a.txt' } },
          { name: 'FileRead', input: { path: 'b.txt' } },
        ],
      },
      { text: 'read both' },
    );
    expect((await run(['-p', 'read them'])).code).toBe(0);
    writeFileSync(join(ws.dir, 'b.txt'), 'host = there, changed\n');
    utimesSync(join(ws.dir, 'b.txt'), new Date(), new Date(Date.now() + 10_000));
    server.enqueue(
      {
        toolCalls: [
          { name: 'Edit', input: { path: 'a.txt', old_string: '3000', new_string: '4000' } },
          { name: 'Edit', input: { path: 'b.txt', old_string: 'host', new_string: 'name' } },
        ],
      },
      { text: 'done' },
    );
    const r = await run(['-p', 'edit them', '--continue', '--permission-mode', 'acceptEdits']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(ws.dir, 'a.txt'), 'utf8')).toBe('port = 4000\n');
    expect(readFileSync(join(ws.dir, 'b.txt'), 'utf8')).toBe('host = there, changed\n');
    const [editA, editB] = lastResults().slice(-2);
    expect(editA).not.toMatch(/read it first/);
    expect(editB).toMatch(/changed|again/i);
  });
});
