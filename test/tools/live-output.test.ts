import { describe, expect, it } from 'vitest';
import { createTools } from '../../src/tools/registry.js';
import { call, ctx } from './helpers.js';
import { tempDir } from '../tempDirs.js';

// Bash reports its output while it runs (the TUI streams it into the tool row); the result the
// model gets is unchanged. The live text is cleaned of secrets like the result.

describe('live Bash output', () => {
  it('arrives in pieces while the command runs, before it ends, and adds up to what it printed', async () => {
    const dir = tempDir('agent-live-');
    const tools = createTools({ bash: { timeoutMs: 20_000, maxTimeoutMs: 20_000, maxOutputChars: 100 }, redact: (t) => t.replaceAll('hunter2', '[REDACTED]') });
    const bash = tools.find((t) => t.name === 'Bash')!;
    const pieces: Array<{ at: number; text: string }> = [];
    const started = Date.now();
    const out = await call(
      bash,
      { command: 'echo first; echo pw=hunter2; sleep 0.5; for i in $(seq 1 40); do echo line-$i; done' },
      ctx(dir, { onProgress: (text) => pieces.push({ at: Date.now() - started, text }) }),
    );
    const streamed = pieces.map((p) => p.text).join('');
    expect(streamed).toContain('first\n');
    expect(streamed).toContain('line-40');
    expect(streamed).not.toContain('hunter2');
    expect(streamed).toContain('pw=[REDACTED]');
    // the first line came before the sleep was over
    expect(pieces[0]!.at).toBeLessThan(pieces.at(-1)!.at);
    // the model's copy is capped with a marker; the live copy is whole
    expect(out.content).toMatch(/characters \(\d+ lines\) cut from the middle of the output/);
    expect(streamed.split('\n').filter((l) => l.startsWith('line-'))).toHaveLength(40);
  });
});
