import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FakeServer } from '../fake-server/server.js';
import { FACTS, TURNS, type Fact } from './ledger-script.js';

export { FACTS, FORGETFUL_SUMMARY, TURNS, type Fact } from './ledger-script.js';
import type { RequestView } from '../fake-server/types.js';
import { isSummarizer, runAgent, workspace, type ProviderKind, type Workspace } from './inprocess.js';

// Issue 37's scenario: a 14-turn coding session, /compact, one more turn, with eight facts
// planted where they come up in real work. The first request after /compact is probed for each.

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
    const r = await runAgent(['-p', prompt, '--output-format', 'events', '--model', model, ...(first ? [] : ['--continue'])], {
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
