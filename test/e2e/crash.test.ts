import { expect, it } from 'vitest';
import type { Reply } from '../fake-server/server.js';
import { jsonResult, runAgent, workspace, type ProviderKind, type Workspace, useFakeServer, isSummarizer } from './harness.js';
import { runAgent as runInProcess } from './inprocess.js';
import { describeEachProvider } from './regime.js';

// Crash safety: a print-mode session is killed with SIGKILL at many points; each time the
// next `--continue` must resume with a history the provider accepts (the fake server
// validates tool pairs as the real APIs do) and with every completed message still there.
// Only the killed run is a process of its own (kill -9 is the subject); the warm-up turns before
// it and the resume and export after it read and write the same database in this process.

const server = useFakeServer();

const LONG = 'This turn talks at length about the project so that there is something worth summarizing. '.repeat(30);

interface Event {
  type: string;
  message?: { id: string };
  stage?: string;
}

/** Runs `agent -p prompt --output-format events`, SIGKILLs it when `when` matches an event; returns the events seen. */
async function runUntilKilled(ws: Workspace, provider: ProviderKind, args: string[], when: (e: Event) => boolean): Promise<Event[]> {
  const events: Event[] = [];
  let buffer = '';
  let killed = false;
  const result = await runAgent([...args, '--output-format', 'events', '--permission-mode', 'allow'], {
    ws,
    server,
    provider,
    timeoutMs: 30_000,
    onSpawn: (child) => {
      child.stdout!.on('data', (d: Buffer | string) => {
        buffer += d.toString();
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (!line.trim()) continue;
          const e = JSON.parse(line) as Event;
          events.push(e);
          if (!killed && when(e)) {
            killed = true;
            child.kill('SIGKILL');
          }
        }
      });
    },
  });
  expect(result.signal, `the agent should have been killed; events: ${events.map((e) => e.type).join(',')}\n${result.stderr}`).toBe('SIGKILL');
  return events;
}

interface KillPoint {
  name: string;
  /** Turns run (and completed) before the killed one. */
  warmup?: number;
  replies: Reply[];
  prompt: string;
  when: (e: Event) => boolean;
}

const KILL_POINTS: KillPoint[] = [
  {
    name: 'right after the user message is stored',
    replies: [{ text: 'never seen', frameDelayMs: 200 }],
    prompt: 'hello',
    when: (e) => e.type === 'message',
  },
  {
    name: 'while the reply streams',
    replies: [{ text: LONG, chunkSize: 20, frameDelayMs: 30 }],
    prompt: 'tell me a lot',
    when: (e) => e.type === 'text_delta',
  },
  {
    name: 'while a tool call streams',
    replies: [{ text: 'Running.', toolCalls: [{ name: 'Bash', input: { command: `echo ${'x'.repeat(400)}` } }], jsonChunkSize: 3, frameDelayMs: 15 }],
    prompt: 'run',
    when: (e) => e.type === 'tool_call_streaming',
  },
  {
    name: 'during a tool run (tool_use stored, no result yet)',
    replies: [{ text: 'Sleeping.', toolCalls: [{ name: 'Bash', input: { command: 'sleep 20' } }] }],
    prompt: 'sleep',
    when: (e) => e.type === 'tool_start',
  },
  {
    name: 'between two tool runs',
    replies: [
      {
        toolCalls: [
          { name: 'Bash', input: { command: 'echo first' } },
          { name: 'Bash', input: { command: 'sleep 20' } },
        ],
      },
    ],
    prompt: 'two commands',
    when: (e) => e.type === 'tool_end',
  },
  {
    name: 'while waiting to retry an overloaded provider',
    replies: [{ type: 'error', error: 'rate_limit', retryAfterMs: 20_000 }],
    prompt: 'retry',
    when: (e) => e.type === 'retry',
  },
  {
    name: 'during a compaction',
    warmup: 5,
    replies: [],
    prompt: '/compact',
    when: (e) => e.type === 'compaction_progress' && e.stage === 'summarizing',
  },
  {
    name: 'after the tool results, while the next reply streams',
    replies: [{ toolCalls: [{ name: 'Bash', input: { command: 'echo done-once' } }] }, { text: LONG, chunkSize: 20, frameDelayMs: 30 }],
    prompt: 'run then talk',
    when: (e) => e.type === 'text_delta',
  },
];

describeEachProvider('SIGKILL and resume with %s', (provider) => {
  it.each(KILL_POINTS)('$name', async (point) => {
    const ws = workspace();
    // a slow summarizer, so that a compaction can be caught in the act
    server.respondWith((req) =>
      isSummarizer(req.view) ? { text: `## Goal\nKeep going.\n${'More detail. '.repeat(40)}`, chunkSize: 10, frameDelayMs: 40 } : undefined,
    );
    for (let i = 0; i < (point.warmup ?? 0); i++) {
      server.enqueue({ text: `warm-up answer ${i}. ${LONG}` });
      const r = await runInProcess(['-p', `warm-up ${i}`, ...(i > 0 ? ['--continue'] : [])], { ws, server, provider });
      expect(r.code, r.stderr).toBe(0);
    }
    server.enqueue(...point.replies);
    const resumeArgs = point.warmup ? ['--continue'] : [];
    const events = await runUntilKilled(ws, provider, ['-p', point.prompt, ...resumeArgs], point.when);
    const completed = events.filter((e) => e.type === 'message').map((e) => e.message!.id);

    // whatever the server had queued for the killed run is dropped
    server.clear();
    server.respondWith((req) => (isSummarizer(req.view) ? { text: '## Goal\nKeep going.' } : { text: 'Resumed fine.' }));
    const resumed = await runInProcess(['-p', 'carry on', '--continue', '--output-format', 'json'], { ws, server, provider });
    // the only thing said on resume is what was repaired (a call closed as interrupted, an unanswered prompt marked)
    const said = resumed.stderr.split('\n').filter(Boolean);
    for (const line of said) expect(line).toMatch(/^agent: (Repaired the stored history of session \S+: |Your previous message got no reply)/);
    expect(resumed.code).toBe(0);
    expect(jsonResult(resumed).result).toBe('Resumed fine.');
    const sent = server.requests.at(-1)!;
    expect(sent.response?.status).toBe(200);

    const exported = await runInProcess(['sessions', 'export', String(jsonResult(resumed).session_id), '--format', 'jsonl'], { ws });
    const stored = new Set(
      exported.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; id?: string })
        .filter((l) => l.type === 'message')
        .map((l) => l.id),
    );
    for (const id of completed) expect(stored.has(id), `message ${id} completed before the kill is missing`).toBe(true);
  });
});
