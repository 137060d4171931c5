import { beforeAll, describe, expect, it } from 'vitest';
import { createTokenCounter } from '../../src/compaction/tokens.js';
import { deriveLedger, ledgerMessages } from '../../src/ledger/ledger.js';
import { BUILT_IN_SECTIONS } from '../../src/ledger/sections.js';
import type { Message } from '../../src/llm/messages.js';
import { rng } from '../../bench/rng.js';

// The ledger is a derivation: whatever sequence of compactions, resumes (a copy read back from
// the store), forks (a copy under the same ids), rewinds and uncompacts led to the state it is
// computed in, it equals a fresh derivation over the log as it stands.

const sections = BUILT_IN_SECTIONS;
let count: (t: string) => number;
beforeAll(async () => {
  const c = await createTokenCounter();
  count = (t) => c.countText(t);
});

function turn(r: () => number, i: number): Message[] {
  const out: Message[] = [
    { id: `u${i}`, role: 'user', kind: 'normal', blocks: [{ type: 'text', text: `request ${i} ${'x'.repeat(Math.floor(r() * 80))}` }], createdAt: i },
  ];
  if (r() < 0.5) {
    const fail = r() < 0.4;
    const cmd = `cmd${Math.floor(r() * 4)}`;
    out.push({
      id: `a${i}`,
      role: 'assistant',
      kind: 'normal',
      blocks: [{ type: 'tool_use', id: `t${i}`, name: r() < 0.5 ? 'Bash' : 'Edit', input: { command: cmd, path: `f${Math.floor(r() * 5)}.ts` } }],
      createdAt: i,
    });
    out.push({
      id: `r${i}`,
      role: 'user',
      kind: 'normal',
      blocks: [{ type: 'tool_result', toolUseId: `t${i}`, content: fail ? 'Error: no\n\nExit code 1' : 'ok', isError: fail }],
      createdAt: i,
    });
  }
  out.push({ id: `b${i}`, role: 'assistant', kind: 'normal', blocks: [{ type: 'text', text: 'done' }], createdAt: i });
  return out;
}

const describeCall = (_n: string, input: Record<string, unknown>): string => String(input.command ?? '');
const derive = (messages: readonly Message[], kept: readonly Message[]) =>
  deriveLedger({ messages, kept: new Set(kept.map((m) => m.id)), describe: describeCall }, sections, 2_000, count).text;

describe('the ledger over random operation sequences', () => {
  it('equals a fresh derivation after compactions, resumes, forks, rewinds and uncompacts', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const r = rng(seed);
      // the log as the store keeps it: every message in order, each visible or archived by a compaction
      let log: Message[] = [];
      let archived = new Set<string>();
      const compactions: string[][] = [];
      let next = 0;
      for (let step = 0; step < 25; step++) {
        const op = r();
        const visible = log.filter((m) => !archived.has(m.id));
        if (op < 0.5) log.push(...turn(r, next++));
        else if (op < 0.65 && visible.length > 4) {
          // a compaction archives a head of the visible history
          const head = visible.slice(0, Math.floor(visible.length / 2)).map((m) => m.id);
          compactions.push(head);
          archived = new Set([...archived, ...head]);
        } else if (op < 0.75 && compactions.length > 0) {
          // /uncompact: the last compaction's messages come back into view
          const undone = compactions.pop()!;
          archived = new Set([...archived].filter((id) => !undone.includes(id)));
        } else if (op < 0.85) {
          // a rewind takes the last turn back out of the log
          const at = log.map((m) => m.id).lastIndexOf(`u${next - 1}`);
          if (at >= 0 && !archived.has(log[at]!.id)) log = log.slice(0, at);
        } else {
          // a resume or a fork: the same messages read back (copies under the same ids)
          log = structuredClone(log);
        }
        const history = log.filter((m) => !archived.has(m.id));
        const kept = history.slice(-3);
        const viaStore = derive(
          ledgerMessages(
            log.filter((m) => archived.has(m.id)),
            history,
          ),
          kept,
        );
        // mutation: a ledger that does not dedupe, or reads only the history, differs here
        expect(viaStore).toBe(derive(structuredClone(log), kept));
      }
    }
  });
});
