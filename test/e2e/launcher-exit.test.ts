import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, useFakeServer, workspace } from './harness.js';

// The launcher (bin/agent.js) ends the process as soon as the command is done, instead of
// waiting for the provider's idle keep-alive socket; what was written to a pipe must still
// arrive whole, however slowly the reader takes it.

const ROOT = resolve(__dirname, '..', '..');
const server = useFakeServer();

describe('the launcher', () => {
  it('exits after a print-mode answer with all of its output delivered to a slow reader', async () => {
    const answer = Array.from({ length: 20_000 }, (_, i) => `line ${i} of a long answer`).join('\n');
    server.enqueue({ text: answer });
    const ws = workspace();
    const child = spawn(process.execPath, [AGENT_BIN, '-p', 'write a lot'], { env: agentEnv({ ws, server }), cwd: ws.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // a reader that only starts once the pipe is full, and then takes small sips
    child.stdout.pause();
    await new Promise((r) => setTimeout(r, 1_500));
    const chunks: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => {
      chunks.push(d);
      child.stdout.pause();
      setTimeout(() => child.stdout.resume(), 2);
    });
    child.stdout.resume();
    const status = await new Promise<number | null>((done) => child.on('close', done));
    expect(status, stderr).toBe(0);
    const out = Buffer.concat(chunks).toString('utf8');
    expect(out.length).toBeGreaterThan(65_536 * 4);
    expect(out).toBe(`${answer}\n`);
  });

  it("the bundle measures text widths through the fast path, not wrap-ansi's own string-width", () => {
    const meta = JSON.parse(readFileSync(join(ROOT, 'dist', 'meta.json'), 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
    const inputs = Object.values(meta.outputs).flatMap((o) => Object.keys(o.inputs));
    expect(inputs).toContain('src/ui/stringWidth.ts');
    expect(inputs.filter((i) => i.includes('wrap-ansi/node_modules/string-width'))).toEqual([]);
  });
});
