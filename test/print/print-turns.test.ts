import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/bootstrap.js';
import { PrintTurns } from '../../src/print/printTurns.js';
import { inWorld, processWorld } from '../../src/runtime/world.js';
import { startFakeServer, type FakeServer } from '../fake-server/server.js';
import { fakeProviderEnv } from '../llm/helpers.js';
import { isSummaryRequest, SUMMARY } from '../compaction/helpers.js';
import type { ModelRequest } from '../../src/llm/provider.js';
import { tempDir } from '../tempDirs.js';

// Print mode's turns over a real runtime (createRuntime against the fake provider) with
// stream-json in and out, its standard output captured: one result line per input line.

/** An answer long enough that a compaction after it has something to shrink. */
const ANSWER = `The fake model answers. ${'It goes on about the code base at some length. '.repeat(150)}`.trim();
let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer({ fallback: { text: ANSWER } });
  // the summarizer's request (/compact) gets a checkpoint
  server.respondWith((r) => (isSummaryRequest(r.view as unknown as ModelRequest) ? { text: SUMMARY } : undefined));
});
afterAll(() => server.close());

describe('print mode, a line at a time (--input-format stream-json)', () => {
  it("a prompt's result is its answer; a command that prints nothing of its own (/compact) is its receipt, not a turn's", async () => {
    const home = tempDir('agent-print-turns-');
    const cwd = join(home, 'project');
    mkdirSync(cwd);
    const env = fakeProviderEnv(home, server.anthropicBaseURL);
    const stdout = new PassThrough();
    let written = '';
    stdout.on('data', (b: Buffer) => (written += b.toString('utf8')));
    const world = { ...processWorld(), cwd, env, stdout: stdout as unknown as NodeJS.WriteStream, slots: new Map<symbol, unknown>() };
    await inWorld(world, async () => {
      const { runtime } = await createRuntime({ outputFormat: 'stream-json', inputFormat: 'stream-json', model: 'claude-sonnet-4-5' }, {}, env);
      const turns = new PrintTurns(runtime, { format: 'stream-json', inputStream: true, partialMessages: false });
      turns.listen();
      expect(await turns.once('say something', [])).toBe(0);
      expect(await turns.once('say more', [])).toBe(0);
      const code = await turns.once('/compact', []);
      expect(code).toBe(0);
      runtime.close();
    });
    const results = written
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; result?: string; is_error?: boolean })
      .filter((m) => m.type === 'result');
    expect(results).toHaveLength(3);
    expect(results[0]).toMatchObject({ is_error: false, result: ANSWER });
    // mutation: `!output && this.lastTurn` made `||`: a command without output read as a model turn's result
    expect(results[2]!.result).not.toBe(ANSWER);
    expect(results[2]!.result).toMatch(/compact/i);
  });
});
