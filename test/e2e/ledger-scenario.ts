import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FakeServer, Reply } from '../fake-server/server.js';
import type { RequestView } from '../fake-server/types.js';
import { isSummarizer, runAgent, workspace, type ProviderKind, type Workspace } from './harness.js';

// Issue 37's scenario: a 14-turn coding session, /compact, one more turn, with eight facts
// planted where they come up in real work. The first request after /compact is probed for each.

export interface Fact {
  name: string;
  /** A string only this fact puts in a request. */
  needle: string;
}

export const FACTS: readonly Fact[] = [
  { name: 'a standing rule the person gave in turn 1', needle: 'always use httpie, never curl' },
  { name: 'a second rule given in turn 3', needle: 'never touch the migrations folder' },
  { name: 'a fact read from a file', needle: 'PAYMENT_PORT=8734' },
  { name: 'the path of a modified file', needle: 'src/retry-client.ts' },
  { name: 'the error of a failed command, still unresolved', needle: 'ECONNREFUSED 127.0.0.1:5432' },
  { name: 'an older request of the person', needle: 'rename fetchInvoice to loadInvoice' },
  { name: 'a second older request', needle: 'document the webhook signature check' },
  { name: 'the latest request', needle: 'log every retry with its attempt number' },
];

const FILLER = 'It walks through the handler, the queue and the scheduler in some detail, with the reasoning behind each. '.repeat(18);

/** The turns: the person's prompt and the model's scripted replies. */
export const TURNS: ReadonlyArray<{ prompt: string; replies: Reply[] }> = [
  {
    prompt: 'Set up the payments API client. A standing rule for this project: always use httpie, never curl, for any HTTP call.',
    replies: [{ text: `Understood. ${FILLER}` }],
  },
  {
    prompt: 'Which port does the payment service listen on?',
    replies: [{ toolCalls: [{ name: 'FileRead', input: { path: 'config/app.env' } }] }, { text: `It is set in the env file. ${FILLER}` }],
  },
  { prompt: 'Rule two: never touch the migrations folder, whatever a task seems to need.', replies: [{ text: `Noted. ${FILLER}` }] },
  {
    prompt: 'Add a retry wrapper for the client.',
    replies: [
      { toolCalls: [{ name: 'Write', input: { path: 'src/retry-client.ts', content: 'export const retries = 3;\n' } }] },
      { text: `Added the wrapper. ${FILLER}` },
    ],
  },
  { prompt: 'Next, rename fetchInvoice to loadInvoice in every module.', replies: [{ text: `Renamed. ${FILLER}` }] },
  {
    prompt: 'Run the integration tests.',
    replies: [
      { toolCalls: [{ name: 'Bash', input: { command: 'sh -c "echo running 14 tests; echo Error: connect ECONNREFUSED 127.0.0.1:5432 >&2; exit 1"' } }] },
      { text: `The tests could not run. ${FILLER}` },
    ],
  },
  { prompt: 'What does the client do on a timeout?', replies: [{ text: `On a timeout ${FILLER}` }] },
  { prompt: 'Then document the webhook signature check in the docs.', replies: [{ text: `Documented. ${FILLER}` }] },
  { prompt: 'How is the queue drained at shutdown?', replies: [{ text: `At shutdown ${FILLER}` }] },
  { prompt: 'And how are the jobs scheduled?', replies: [{ text: `The scheduler ${FILLER}` }] },
  { prompt: 'Explain the handler once more.', replies: [{ text: `The handler ${FILLER}` }] },
  { prompt: 'What about the error mapping?', replies: [{ text: `Errors ${FILLER}` }] },
  { prompt: 'Summarize the module layout for me.', replies: [{ text: `The layout ${FILLER}` }] },
  { prompt: 'Last for now: make the client log every retry with its attempt number.', replies: [{ text: `Working on it. ${FILLER}` }] },
];

/** A summary that keeps no fact at all (the worst a real model can write that still is a checkpoint). */
export const FORGETFUL_SUMMARY = '## Goal\nContinue the work.\n\n## Next Steps\nContinue.';

export function scenarioWorkspace(rc: Record<string, unknown> = {}): Workspace {
  const ws = workspace({ permissions: { mode: 'allow' }, ...rc });
  mkdirSync(join(ws.dir, 'config'));
  mkdirSync(join(ws.dir, 'src'));
  writeFileSync(join(ws.dir, 'config', 'app.env'), 'PAYMENT_HOST=localhost\nPAYMENT_PORT=8734\n');
  return ws;
}

export interface ScenarioRun {
  /** The first request of the agent after /compact. */
  first: RequestView;
  carried: Fact[];
  /** Whether every turn ended well. */
  codes: Array<number | null>;
  stdout: string[];
}

/** Runs the scenario with `summary` as what the summarizer answers; returns the first request after /compact. */
export async function runScenario(
  server: FakeServer,
  provider: ProviderKind,
  model: string,
  ws: Workspace,
  summary: (view: RequestView) => string,
): Promise<ScenarioRun> {
  server.respondWith((req) => (req.view && isSummarizer(req.view) ? { text: summary(req.view) } : undefined));
  const codes: Array<number | null> = [];
  const stdout: string[] = [];
  const run = async (prompt: string, first: boolean): Promise<void> => {
    const r = await runAgent(['-p', prompt, '--output-format', 'stream-json', '--model', model, ...(first ? [] : ['--continue'])], {
      ws,
      server,
      provider,
      timeoutMs: 60_000,
    });
    codes.push(r.code);
    stdout.push(r.stdout);
  };
  for (const [i, t] of TURNS.entries()) {
    server.enqueue(...t.replies);
    await run(t.prompt, i === 0);
  }
  await run('/compact', false);
  const before = server.requests.length;
  server.enqueue({ text: 'Continuing.' });
  await run('Go on.', false);
  const first = server.requests.slice(before).find((q) => q.view && !isSummarizer(q.view))!.view!;
  const text = JSON.stringify(first.messages) + first.system;
  return { first, carried: FACTS.filter((f) => text.includes(f.needle)), codes, stdout };
}
