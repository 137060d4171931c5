import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonResult, runAgent, workspace, useFakeServer } from './inprocess.js';

// Issue #14 in print mode and the sessions command: the built CLI against the fake server.

const server = useFakeServer();

describe('daily-driver conventions in print mode', () => {
  it('sends a prompt that starts with a path to the model instead of refusing it as a command', async () => {
    const ws = workspace();
    server.enqueue({ text: 'It looks fine.' });
    const r = await runAgent(['-p', '/etc/hosts is it fine?'], { ws, server });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('It looks fine.\n');
    expect(JSON.stringify(server.requests[0]!.view!.messages)).toContain('/etc/hosts is it fine?');
  });

  it('attaches an @mentioned file to the prompt the model receives', async () => {
    const ws = workspace();
    writeFileSync(join(ws.dir, 'plan.md'), '# Plan\nship the walrus feature on Friday\n');
    server.enqueue({ text: 'Friday.' });
    const r = await runAgent(['-p', 'when do we ship? see @plan.md'], { ws, server });
    expect(r.code).toBe(0);
    const sent = JSON.stringify(server.requests[0]!.view!.messages);
    expect(sent).toContain('ship the walrus feature on Friday');
    expect(sent).toContain('when do we ship? see @plan.md');
  });

  it('reports Bash output while it runs (tool_progress in the events stream), the result unchanged', async () => {
    const ws = workspace();
    server.enqueue({ text: 'Running.', toolCalls: [{ name: 'Bash', input: { command: 'echo live-one; sleep 0.3; echo live-two' } }] }, { text: 'Done.' });
    const r = await runAgent(['-p', 'run it', '--permission-mode', 'allow', '--output-format', 'events'], { ws, server });
    expect(r.code).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; text?: string; output?: { content: string } });
    const progress = events
      .filter((e) => e.type === 'tool_progress')
      .map((e) => e.text)
      .join('');
    expect(progress).toContain('live-one');
    expect(progress).toContain('live-two');
    const end = events.find((e) => e.type === 'tool_end');
    expect(end?.output?.content).toBe('live-one\nlive-two');
    // progress comes before the end of the tool
    expect(events.findIndex((e) => e.type === 'tool_progress')).toBeLessThan(events.findIndex((e) => e.type === 'tool_end'));
  });

  it('accepts the short id the footer shows for --resume and agent sessions, and says when a prefix is ambiguous', async () => {
    const ws = workspace();
    server.enqueue({ text: 'first' }, { text: 'second' }, { text: 'again' });
    const a = jsonResult(await runAgent(['-p', 'one', '--output-format', 'json'], { ws, server }));
    jsonResult(await runAgent(['-p', 'two', '--output-format', 'json'], { ws, server }));
    const id = a.session_id as string;
    const short = id.slice(-8);
    const show = await runAgent(['sessions', 'show', short], { ws });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`session ${id}`);
    const resumed = jsonResult(await runAgent(['-p', 'three', '--resume', short, '--output-format', 'json'], { ws, server }));
    expect(resumed.session_id).toBe(id);
    const ambiguous = await runAgent(['sessions', 'show', 's_'], { ws });
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/ambiguous/);
  });
});
