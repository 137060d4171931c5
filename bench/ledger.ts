// The working-state ledger on a long session: figures measured in one run, no pass/fail.
//   npx tsx bench/ledger.ts      (npm run bench -- ledger)
// 5,000 messages of the person (each answered, every tenth turn a tool call, some failing),
// the ledger derived with the budget of a 200K window and of a 32K one: the time to derive it
// (median of 15 after a warm-up, the best of them, and the median CPU time, which a loaded machine
// inflates less) and its tokens against the budget.
import { performance } from 'node:perf_hooks';
import { createTokenCounter } from '../src/compaction/tokens.js';
import { deriveLedger, ledgerBudget } from '../src/ledger/ledger.js';
import { BUILT_IN_SECTIONS } from '../src/ledger/sections.js';
import type { Message } from '../src/llm/messages.js';
import { rng } from './rng.js';

const PERSON = 5_000;

function session(): Message[] {
  const r = rng(37);
  const out: Message[] = [];
  let id = 0;
  const m = (role: 'user' | 'assistant', blocks: Message['blocks']): Message => ({ id: `m_${++id}`, role, kind: 'normal', blocks, createdAt: id });
  for (let i = 0; i < PERSON; i++) {
    const words = Array.from({ length: 10 + Math.floor(r() * 60) }, (_, k) => `w${(k * 7919 + i) % 997}`).join(' ');
    out.push(m('user', [{ type: 'text', text: `Request ${i}: ${words}` }]));
    if (i % 10 === 0) {
      const use = `t_${i}`;
      const fail = r() < 0.3;
      const edit = r() < 0.5;
      out.push(
        m('assistant', [
          { type: 'tool_use', id: use, name: edit ? 'Edit' : 'Bash', input: edit ? { path: `src/f${i % 400}.ts` } : { command: `npm test -- part${i % 50}` } },
        ]),
      );
      out.push(m('user', [{ type: 'tool_result', toolUseId: use, content: fail ? 'Error: something broke\n\nExit code 1' : 'ok', isError: fail }]));
    }
    out.push(m('assistant', [{ type: 'text', text: `Done with request ${i}.` }]));
  }
  return out;
}

export async function runLedgerBench(): Promise<
  Array<{ window: number; budget: number; tokens: number; ms: number; bestMs: number; cpuMs: number; refMs: number; shown: number; listed: number }>
> {
  const counter = await createTokenCounter();
  const messages = session();
  const sections = BUILT_IN_SECTIONS;
  const input = { messages, kept: new Set<string>(), describe: (_n: string, i: Record<string, unknown>) => String(i.command ?? i.path ?? '') };
  const rows = [];
  for (const window of [180_000, 28_000]) {
    const budget = ledgerBudget(window);
    // a fresh counter memo each time would be unfair to neither: the text counts are the cost
    deriveLedger(input, sections, budget, (t) => counter.countText(t));
    const times: number[] = [];
    const cpu: number[] = [];
    let last = deriveLedger(input, sections, budget, (t) => counter.countText(t));
    for (let k = 0; k < 15; k++) {
      // a new log each time, as a compaction builds it: nothing memoized for one log carries over
      const fresh = { ...input, messages: [...messages] };
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      last = deriveLedger(fresh, sections, budget, (t) => counter.countText(t));
      times.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
    }
    times.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);
    const words = last.sections.find((s) => s.id === 'words')!;
    // a reference on the same machine and load: serializing the messages once
    const ref: number[] = [];
    for (let k = 0; k < 9; k++) {
      const t0 = performance.now();
      JSON.stringify(messages);
      ref.push(performance.now() - t0);
    }
    ref.sort((a, b) => a - b);
    rows.push({
      window,
      budget,
      tokens: last.tokens,
      ms: times[7]!,
      bestMs: times[0]!,
      cpuMs: cpu[7]!,
      refMs: ref[4]!,
      shown: words.shown,
      listed: words.listed,
    });
  }
  return rows;
}

const rows = await runLedgerBench();
console.log(`${PERSON.toLocaleString('en-US')} messages of the person (${(PERSON * 2.2).toLocaleString('en-US')} in all):`);
for (const r of rows) {
  console.log(
    `  effective window ${r.window.toLocaleString('en-US')}: ledger ${r.tokens.toLocaleString('en-US')} / ${r.budget.toLocaleString('en-US')} tokens, derived in ${r.ms.toFixed(1)} ms (median of 15; best ${r.bestMs.toFixed(1)} ms; median CPU time ${r.cpuMs.toFixed(1)} ms; ${(r.ms / r.refMs).toFixed(1)}× one JSON.stringify of the messages); the person's words: ${r.shown} shown, ${r.listed} listed or counted`,
  );
}
