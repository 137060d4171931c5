import { beforeAll, describe, expect, it } from 'vitest';
import { createTokenCounter } from '../../src/compaction/tokens.js';
import { deriveLedger, ledgerFacts, ledgerMessages } from '../../src/ledger/ledger.js';
import { renderSection } from '../../src/ledger/render.js';
import { BUILT_IN_SECTIONS, ledgerSectionList } from '../../src/ledger/sections.js';
import { keyErrorLine } from '../../src/ledger/sections.js';
import type { LedgerInput } from '../../src/ledger/types.js';
import type { Message } from '../../src/llm/messages.js';
import { assistant, mid, results, user, words } from '../compaction/helpers.js';

const describeCall = (_name: string, input: Record<string, unknown>): string => String(input.command ?? input.path ?? '');
const input = (messages: Message[], kept: Message[] = []): LedgerInput => ({ messages, kept: new Set(kept.map((m) => m.id)), describe: describeCall });
const sections = BUILT_IN_SECTIONS;
let count: (t: string) => number;

beforeAll(async () => {
  const counter = await createTokenCounter();
  count = (t) => counter.countText(t);
});

function call(name: string, input: Record<string, unknown>, output: string, isError = false): Message[] {
  const id = mid('t');
  return [assistant('', [{ id, name, input }]), results([{ id, content: output, isError }])];
}

describe('the working-state ledger', () => {
  it("quotes every message of the person outside the kept part, and none of the agent's", () => {
    const rule = user('Always use httpie, never curl.');
    const second = user('Second rule: tabs, not spaces.');
    const kept = user('the newest request, still in view');
    const msgs = [rule, assistant('ok'), second, assistant('noted'), { ...user('[summary]'), kind: 'checkpoint' as const }, kept];
    const l = deriveLedger(input(msgs, [kept]), sections, 4_000, count);
    expect(l.text).toContain('> Always use httpie, never curl.');
    expect(l.text).toContain('> Second rule: tabs, not spaces.');
    expect(l.text).toContain(`[${rule.id}]`);
    // mutation: dropping the `kept` filter shows the kept message twice in the request
    expect(l.text).not.toContain('the newest request');
    expect(l.text).not.toContain('[summary]');
    expect(l.text).not.toContain('> ok');
  });

  it('is byte-stable: the same log gives the same block', () => {
    const msgs = [
      user('first'),
      ...call('Edit', { path: 'a.ts' }, 'edited'),
      user('second'),
      ...call('Bash', { command: 'npm test' }, 'FAIL x\n\nExit code 1', true),
    ];
    expect(deriveLedger(input(msgs), sections, 4_000, count).text).toBe(deriveLedger(input(structuredClone(msgs)), sections, 4_000, count).text);
  });

  // mutations: not recording what the model said after a change, or keeping the newest file whole
  // past its budget instead of giving way to its one line (the older file then counted, not shown)
  it("carries the model's first words after a change beside the file, and gives them up first when short of room", () => {
    const msgs = [
      user('go'),
      ...call('FileRead', { path: 'config/app.env' }, 'PORT=1'),
      ...call('Write', { path: 'src/retry.ts' }, 'ok'),
      assistant(`Added the wrapper; we settled on exponential backoff with jitter. ${'More detail follows here. '.repeat(20)}`),
    ];
    const roomy = deriveLedger(input(msgs), sections, 4_000, count);
    expect(roomy.text).toContain('- src/retry.ts — modified (1 edit), the model said: "Added the wrapper; we settled on exponential backoff with jitter.');
    expect(roomy.text).toContain('- config/app.env — read');
    const files = sections.filter((x) => x.id === 'files');
    const tight = deriveLedger(input(msgs), files, 100, count);
    expect(tight.text).toContain('- src/retry.ts — modified (1 edit)');
    expect(tight.text).not.toContain('the model said');
    expect(tight.text).toContain('- config/app.env — read');
  });

  // mutation: returning '' when nothing fits (as before) leaves the model no trace of the state
  it('when no section fits, says what each holds in one line, within the budget', () => {
    const msgs = [
      user(`The first rule. ${'x'.repeat(400)}`),
      ...call('Edit', { path: 'src/a.ts' }, 'ok'),
      user('second'),
      ...call('Bash', { command: 'npm test' }, 'FAIL\n\nExit code 1', true),
    ];
    const l = deriveLedger(input(msgs), sections, 60, count);
    expect(l.text).toContain("- The person's own words: 2\n- Files: 1\n- Failures still standing: 1");
    expect(count(l.text)).toBeLessThanOrEqual(60);
    expect(deriveLedger(input(msgs), sections, 10, count).text).toBe('');
  });

  it('lists files read and modified, cumulatively, with the number of edits', () => {
    const msgs = [
      user('go'),
      ...call('FileRead', { path: 'src/a.ts' }, 'text'),
      ...call('Edit', { path: 'src/b.ts' }, 'ok'),
      ...call('Edit', { path: 'src/b.ts' }, 'ok'),
      ...call('Edit', { path: 'src/c.ts' }, 'old_string not found', true),
    ];
    const l = deriveLedger(input(msgs), sections, 4_000, count);
    expect(l.text).toContain('- src/b.ts — modified (2 edits)');
    expect(l.text).toContain('- src/a.ts — read');
    // a failed edit changed nothing (mutation: counting errors lists c.ts as modified)
    expect(l.text).not.toContain('src/c.ts — modified');
    expect(l.facts.modified).toEqual(['src/b.ts']);
  });

  it('keeps a failure while it stands, with its exit status, key line and Recall id, and drops it once the same command succeeds', () => {
    const failing = call('Bash', { command: 'npm test' }, 'running 12 tests\nError: ECONNREFUSED 127.0.0.1:5432\n\nExit code 1', true);
    const other = call('Bash', { command: 'make lint' }, 'lint.c:3: error: bad\n\nExit code 2', true);
    const before = deriveLedger(input([user('go'), ...failing, ...other]), sections, 4_000, count);
    expect(before.text).toContain(`- Bash npm test → exit 1: Error: ECONNREFUSED 127.0.0.1:5432 (Recall id ${failing[1]!.id})`);
    // newest first
    expect(before.text.indexOf('make lint')).toBeLessThan(before.text.indexOf('npm test'));
    expect(before.facts.failures).toEqual(['npm test', 'make lint']);
    const after = deriveLedger(input([user('go'), ...failing, ...other, ...call('Bash', { command: 'npm test' }, 'all passed')]), sections, 4_000, count);
    // mutation: not deleting on success keeps "npm test" standing
    expect(after.text).not.toContain('npm test');
    expect(after.facts.failures).toEqual(['make lint']);
  });

  it('finds the line of an error that says what went wrong', () => {
    expect(keyErrorLine('compiling\nwarning: x\nsrc/a.ts(3,1): error TS2322: bad\n\nExit code 2')).toBe('src/a.ts(3,1): error TS2322: bad');
    expect(keyErrorLine('just output\n\nExit code 3')).toBe('just output');
  });

  it("picks a Python or Node error's own line, not the traceback's header or a stack path", () => {
    const python = [
      'Traceback (most recent call last):',
      '  File "/work/app/main.py", line 3, in <module>',
      '    import requests',
      "ModuleNotFoundError: No module named 'requests'",
      '',
      'Exit code 1',
    ].join('\n');
    expect(keyErrorLine(python)).toBe("ModuleNotFoundError: No module named 'requests'");
    const chained = [
      'Traceback (most recent call last):',
      '  File "a.py", line 2, in <module>',
      "    d['x']",
      "KeyError: 'x'",
      '',
      'During handling of the above exception, another exception occurred:',
      '',
      'Traceback (most recent call last):',
      '  File "a.py", line 4, in <module>',
      '    raise RuntimeError("invalid config")',
      'RuntimeError: invalid config',
    ].join('\n');
    expect(keyErrorLine(chained)).toBe('RuntimeError: invalid config');
    expect(keyErrorLine('Traceback (most recent call last):\n  File "b.py", line 1, in <module>\nKeyError: \'HOME\'\n\nExit code 1')).toBe("KeyError: 'HOME'");
    const node = [
      '/work/app/index.js:3',
      '  user.name.trim()',
      '            ^',
      '',
      "TypeError: Cannot read properties of undefined (reading 'trim')",
      '    at Object.<anonymous> (/work/app/index.js:3:13)',
      '    at Module._compile (node:internal/modules/cjs/loader:1358:14)',
      '',
      'Node.js v20.11.1',
      '',
      'Exit code 1',
    ].join('\n');
    expect(keyErrorLine(node)).toBe("TypeError: Cannot read properties of undefined (reading 'trim')");
    const java = 'Exception in thread "main" java.lang.NullPointerException\n\tat Main.main(Main.java:5)\n\nExit code 1';
    expect(keyErrorLine(java)).toBe('Exception in thread "main" java.lang.NullPointerException');
    expect(keyErrorLine('\tat Main.main(Main.java:5)\njava.lang.NullPointerException\n\nExit code 1')).toBe('java.lang.NullPointerException');
    // mutations: without the error-type line the first three pick "Traceback (most recent call last):";
    // taking the first typed line instead of the last picks the chained traceback's KeyError
  });

  it('carries the spilled outputs by handle', () => {
    const spilled = call(
      'Bash',
      { command: 'find /' },
      '[output o7: 90,000 lines, 4.1 MB; head and tail shown; Recall id="o7" with offset/limit (lines) or pattern for the rest.]\n...',
    );
    const l = deriveLedger(input([user('go'), ...spilled]), sections, 4_000, count);
    expect(l.text).toContain('- o7 — Bash find / (90,000 lines, 4.1 MB)');
  });

  it('stays within its budget: the middle messages go to one line (middle-out), then to their Recall ids; the first and newest stay whole', () => {
    const msgs: Message[] = [];
    for (let i = 0; i < 60; i++) msgs.push(user(`request ${i}: ${words(80, `r${i}`)}`), assistant('done'));
    for (const budget of [6_000, 1_500, 400]) {
      const l = deriveLedger(input(msgs), sections, budget, count);
      expect(l.tokens).toBeLessThanOrEqual(budget);
      // the newest request is never left out
      expect(l.text).toContain('request 59:');
      const listed = l.sections.find((s) => s.id === 'words')!;
      // every message is shown or listed: nothing dropped without a trace
      expect(listed.shown + listed.listed).toBe(60);
    }
    const tight = deriveLedger(input(msgs), sections, 1_500, count);
    expect(tight.text).toContain('Not shown here (read them with Recall id)');
    expect(tight.text).toContain(msgs[100]!.id);
    // middle-out: the oldest of the middle keep their one line as the newest do (a session's early
    // requests: its task, its rules); the centre gives way. Newest first, an older request was only
    // an id by the third compaction of the fidelity bench's auto×3, in either compaction path.
    expect(tight.text).toContain(`[${msgs[4]!.id}] request 2:`);
    expect(tight.text).toContain(`[${msgs[116]!.id}] request 58:`);
    expect(tight.text).not.toContain('request 30:');
    // mutation: render.ts's fit giving the one lines newest first (as before) instead of middle-out
    // leaves request 2 without its line
  });

  it('a request whose line does not fit gives way alone: shorter ones further in keep theirs', () => {
    const msgs: Message[] = [];
    // long requests at the ends, short ones in the centre: middle-out, the long ones come first and do not all fit
    for (let i = 0; i < 60; i++) msgs.push(user(i >= 25 && i < 35 ? `request ${i}: short` : `request ${i}: ${words(80, `r${i}`)}`), assistant('done'));
    const tight = deriveLedger(input(msgs), sections, 1_500, count);
    expect(tight.tokens).toBeLessThanOrEqual(1_500);
    // mutation: `break` for `continue` in render.ts's middle-out pass: the first line that does not fit ends it, the short ones get none
    const centre = [...tight.text.matchAll(/\] request (\d+): short$/gm)].map((m) => Number(m[1]));
    expect(centre.length).toBeGreaterThan(0);
  });

  it('gives one section its lines while they fit: every line of an odd-length middle-out list, the newest first elsewhere, then Recall ids', () => {
    const items = (brief: number) =>
      Array.from({ length: 5 }, (_, k) => ({ text: `item ${k} ${'x'.repeat(350)}`, brief: `item ${k} ${'b'.repeat(brief)}`, recallId: `r${k}` }));
    // middle-out (the person's words): the centre of five is reached too (mutation: `i < j` in bothEnds leaves it an id)
    const centred = renderSection({ title: 'T' }, items(4), 60, true);
    expect(centred.text).toBe('### T\nitem 0 bbbb\nitem 1 bbbb\nitem 2 bbbb\nitem 3 bbbb\nitem 4 bbbb');
    // newest first (the other sections): two lines fit, the rest by id (mutation: `||` for `&&` gives every item its line)
    const newest = renderSection({ title: 'T' }, items(60), 80, false);
    expect([newest.shown, newest.listed]).toEqual([2, 3]);
    expect(newest.text.split('\n').at(-1)).toBe('Not shown here (read them with Recall id): r2, r3, r4');
  });

  it('carries a slice a capability brings, in its order, without a change to the ledger', () => {
    const tasks = { id: 'tasks', title: 'Task list', order: 25, share: 0.1, derive: () => [{ text: '- [ ] migrate the schema' }] };
    const later = { id: 'later', title: 'Later', order: 50, share: 0.1, derive: () => [] };
    const list = ledgerSectionList([later, tasks]);
    const l = deriveLedger(input([user('go'), ...call('Edit', { path: 'x.ts' }, 'ok')]), list, 4_000, count);
    expect(l.text).toContain('### Task list\n- [ ] migrate the schema');
    expect(l.text.indexOf('### Files')).toBeLessThan(l.text.indexOf('### Task list'));
    // built-in first, then the capabilities' by order (a list in the capabilities' order, unsorted, fails here)
    expect(list.map((s) => s.id)).toEqual(['words', 'files', 'failures', 'spills', 'tasks', 'later']);
    expect(ledgerSectionList([]).map((s) => s.id)).toEqual(['words', 'files', 'failures', 'spills']);
    expect(() => ledgerSectionList([{ id: 'files', title: 'x', order: 1, share: 0.1, derive: () => [] }])).toThrow(/built in/);
    // a share from 0 to 0.5 is taken; above, below or not a number is refused, naming the section
    const sharing = (share: number) => ledgerSectionList([{ id: 'own', title: 'Own', order: 60, share, derive: () => [] }]).at(-1)?.id;
    expect([0, 0.5].map(sharing)).toEqual(['own', 'own']);
    for (const share of [0.51, -0.01, Number.NaN]) expect(() => sharing(share)).toThrow('ledger section "own": share must be between 0 and 0.5');
  });

  it('covers the archived messages and the history once each, in log order', () => {
    const a = user('archived earlier');
    const b = user('visible');
    expect(ledgerMessages([a, b], [b]).map((m) => m.id)).toEqual([a.id, b.id]);
    expect(ledgerFacts(input([a, b])).pendingRequest).toBe('visible');
    // a request still in view is not pending for the summary (the tail carries it)
    expect(ledgerFacts(input([a, b], [b])).pendingRequest).toBeUndefined();
  });
});
