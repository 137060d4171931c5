import { writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IN_PLACE_MARKER } from '../src/compaction/prompt.js';
import type { RequestView } from '../test/fake-server/server.js';
import type { MessageReply, Responder, ToolCallReply } from '../test/fake-server/types.js';

// Issue 48's tool-heavy session, one script for every program (bench/billed.ts): a project of
// real-sized source files and a test suite whose run prints a long report, and a turn that works
// as a coding model does: grep for a symbol, read the file that holds it and a related one, edit
// the first, then run the tests (even turns) or read a third file (odd turns), then answer. Each
// intent is sent in the program's own tools (this agent: Grep, FileRead, Edit, Bash, Recall;
// Claude Code: Grep, Read, Edit, Bash; Codex: exec_command with rg, cat and apply_patch). A read
// the agent spilled (its preview shows the head and tail) is followed by Recalls of the rest, as
// a model that needs the whole file would; a spilled test report is not (its tail holds the
// failures and the summary). Compaction requests get the same checkpoint text whoever asks.

export type Dialect = 'agent' | 'claude' | 'codex';

const MODULES = [
  'parser',
  'lexer',
  'router',
  'cache',
  'scheduler',
  'store',
  'session',
  'config',
  'render',
  'layout',
  'network',
  'retry',
  'metrics',
  'logger',
  'auth',
  'queue',
] as const;
/** Lines of each module, in turn: small, typical and large source files (~1K to ~5K tokens). */
const SIZES = [140, 260, 420, 200, 330, 520, 180, 300] as const;
const LIMITS = 40;

const limitLine = (m: number, k: number, v: number): string => `export const LIMIT_${MODULES[m]!.toUpperCase()}_${k} = ${v};`;
const limitValue = (m: number, k: number): number => 16 + ((m * 7 + k * 13) % 97);

/** One module: a header, its LIMIT constants (the lines the session edits), then functions and a class up to its size. */
function moduleText(m: number): string {
  const name = MODULES[m]!;
  const other = MODULES[(m + 3) % MODULES.length]!;
  const lines = [`// ${name}.ts: the ${name} of the service, with its limits and helpers.`, `import { ${other}Options } from './${other}.js';`, ''];
  for (let k = 0; k < LIMITS; k++) lines.push(limitLine(m, k, limitValue(m, k)));
  let f = 0;
  while (lines.length < SIZES[m % SIZES.length]!) {
    lines.push(
      '',
      `/** Applies ${name} rule ${f} to an entry, bounded by LIMIT_${name.toUpperCase()}_${f % LIMITS}. */`,
      `export function ${name}Rule${f}(entry: { id: string; weight: number; tags: string[] }, opts: ${other}Options): number {`,
      `  const bound = LIMIT_${name.toUpperCase()}_${f % LIMITS} * (opts.scale ?? 1);`,
      `  if (entry.tags.includes('${name}-${f}')) return Math.min(bound, entry.weight * ${f + 2});`,
      `  const score = entry.id.length + entry.weight / ${f + 3};`,
      '  return score > bound ? bound : Math.round(score);',
      '}',
    );
    f++;
  }
  return `${lines.join('\n')}\n`;
}

/** The test runner: a verbose report of every module's cases, one failure with its diff and stack, and the summary (~6K tokens). */
const TESTS_MJS = `import { readdirSync, readFileSync, statSync } from 'node:fs';
const files = readdirSync('src').filter((f) => f.endsWith('.ts')).sort();
const newest = files.reduce((a, b) => (statSync('src/' + b).mtimeMs > statSync('src/' + a).mtimeMs ? b : a));
let passed = 0;
for (const f of files) {
  const name = f.replace('.ts', '');
  console.log(' \\u2713 test/' + name + '.test.ts (' + 18 + ' tests) ' + (readFileSync('src/' + f, 'utf8').length % 97) + 'ms');
  for (let i = 0; i < 18; i++) {
    console.log('   \\u2713 ' + name + ' > rule ' + i + ' keeps the weight of an entry within its bound (' + ((i * 7) % 11) + ' ms)');
    passed++;
  }
}
const failing = newest.replace('.ts', '');
console.log('');
console.log(' FAIL  test/' + failing + '.test.ts > ' + failing + ' > limits > the bound follows the edited limit');
console.log('AssertionError: expected 42 to be 43 // Object.is equality');
console.log('');
console.log('- Expected');
console.log('+ Received');
console.log('');
console.log('- 43');
console.log('+ 42');
console.log('');
for (let i = 0; i < 9; i++) console.log(' \\u276F test/' + failing + '.test.ts:' + (40 + i * 3) + ':' + (7 + i) + '   at rule' + i + ' (src/' + newest + ':' + (50 + i * 8) + ':12)');
console.log('');
console.log(' Test Files  1 failed | ' + (files.length - 1) + ' passed (' + files.length + ')');
console.log('      Tests  1 failed | ' + passed + ' passed (' + (passed + 1) + ')');
console.log('   Duration  2.31s (transform 412ms, setup 0ms, collect 1.02s, tests 318ms)');
process.exitCode = 1;
`;

/** Writes the project: src/<module>.ts and tests.mjs. */
export function writeProject(dir: string): void {
  mkdirSync(join(dir, 'src'), { recursive: true });
  MODULES.forEach((name, m) => writeFileSync(join(dir, 'src', `${name}.ts`), moduleText(m)));
  writeFileSync(join(dir, 'tests.mjs'), TESTS_MJS);
}

/** The edits that did not land after `turns` turns (0 when every program's edits all did). */
export function missingEdits(dir: string, turns: number): number {
  let missing = 0;
  for (let t = 0; t < turns; t++) {
    const e = editOf(t);
    if (!readFileSync(join(dir, e.file), 'utf8').includes(e.to)) missing++;
  }
  return missing;
}

type Intent = { kind: 'grep'; pattern: string } | { kind: 'read'; file: string } | { kind: 'edit'; file: string; from: string; to: string } | { kind: 'test' };

function editOf(t: number): { file: string; from: string; to: string } {
  const m = (t * 5) % MODULES.length;
  return {
    file: `src/${MODULES[m]}.ts`,
    from: limitLine(m, t % LIMITS, limitValue(m, t % LIMITS)),
    to: limitLine(m, t % LIMITS, limitValue(m, t % LIMITS) + 1),
  };
}

/** What turn t does, in order. */
function intents(t: number): Intent[] {
  const e = editOf(t);
  const m = (t * 5) % MODULES.length;
  const related = `src/${MODULES[(m + 3) % MODULES.length]}.ts`;
  const third = `src/${MODULES[(m + 7) % MODULES.length]}.ts`;
  return [
    { kind: 'grep', pattern: `LIMIT_${MODULES[m]!.toUpperCase()}_${t % LIMITS}\\b` },
    { kind: 'read', file: e.file },
    { kind: 'read', file: related },
    { kind: 'edit', ...e },
    t % 2 === 0 ? { kind: 'test' } : { kind: 'read', file: third },
  ];
}

/** The intent as a tool call of the dialect. */
function callOf(d: Dialect, it: Intent, project: string): ToolCallReply {
  switch (it.kind) {
    case 'grep':
      if (d === 'agent') return { name: 'Grep', input: { pattern: it.pattern, outputMode: 'lines' } };
      if (d === 'claude') return { name: 'Grep', input: { pattern: it.pattern, output_mode: 'content', '-n': true } };
      return { name: 'exec_command', input: { cmd: `rg -n '${it.pattern}'` } };
    case 'read':
      if (d === 'agent') return { name: 'FileRead', input: { path: it.file } };
      if (d === 'claude') return { name: 'Read', input: { file_path: join(project, it.file) } };
      return { name: 'exec_command', input: { cmd: `cat -n ${it.file}` } };
    case 'edit':
      if (d === 'agent') return { name: 'Edit', input: { path: it.file, old_string: it.from, new_string: it.to } };
      if (d === 'claude') return { name: 'Edit', input: { file_path: join(project, it.file), old_string: it.from, new_string: it.to } };
      return {
        name: 'exec_command',
        input: { cmd: `apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: ${it.file}\n@@\n-${it.from}\n+${it.to}\n*** End Patch\nEOF` },
      };
    case 'test':
      return d === 'codex'
        ? { name: 'exec_command', input: { cmd: 'node tests.mjs' } }
        : { name: 'Bash', input: { command: 'node tests.mjs', description: 'Run the tests' } };
  }
}

/** The checkpoint every program's compaction gets (~700 tokens). */
const CHECKPOINT = [
  '## Goal',
  'Raise the limits of the service modules one at a time, keeping the test suite in view.',
  '## Completed Work',
  ...MODULES.map((m) => `- src/${m}.ts: read; its LIMIT_${m.toUpperCase()}_* constants edited as asked, each rule function bounded by one of them.`),
  '## Current State',
  'The suite has one standing failure: the bound of the newest edited module follows the edited limit (expected 43, received 42).',
  '## Next Steps',
  'Continue with the next step the person names: grep the limit, read its module and a related one, edit it, run the tests.',
].join('\n');

/**
 * A compaction's summary request, this agent's (its summarizer, or in place) or a peer's: the
 * instruction is in the last message (an earlier checkpoint in the history is not one).
 */
export const isSummaryRequest = (v: RequestView): boolean => {
  if (v.system.includes('context checkpoints')) return true;
  const last = (v.messages.at(-1)?.blocks ?? []).flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
  return last.includes(IN_PLACE_MARKER) || (!/step \d+:/.test(last) && /summar|checkpoint|compact/i.test(last));
};

const dialectOf = (v: RequestView): Dialect | undefined =>
  v.toolNames.includes('FileRead') ? 'agent' : v.toolNames.includes('Read') ? 'claude' : v.toolNames.includes('exec_command') ? 'codex' : undefined;

const SPILL_HEADER = /\[output (o\d+): ([\d,]+) lines[^;]*; lines 1–(\d+) and ([\d,]+)–/;
const READ_ON = /Read on with Recall id="o\d+", offset=(\d+)\./;
const num = (s: string): number => Number(s.replaceAll(',', ''));

/**
 * The call that reads on where a read of `file` left lines out, or undefined when it has shown
 * them all: the agent's spill preview (then its Recall pages, each saying where to read on, up to
 * the preview's tail), Codex's output cut in the middle at ~10 KB (`…N chars truncated…`: the
 * lines of the gap, again while a read of them is cut). Claude Code's Read returns these files whole.
 */
function restOf(d: Dialect, file: string, readText: string, followUp: string | undefined): ToolCallReply | undefined {
  if (d === 'agent') {
    const spilled = SPILL_HEADER.exec(readText);
    if (!spilled) return undefined;
    const [head, tail] = [num(spilled[3]!), num(spilled[4]!)];
    const on = followUp === undefined ? head + 1 : Number(READ_ON.exec(followUp)?.[1] ?? tail);
    return on < tail ? { name: 'Recall', input: { id: spilled[1], offset: on, limit: tail - on } } : undefined;
  }
  if (d !== 'codex') return undefined;
  const lines = (followUp ?? readText).split('\n');
  const cut = lines.findIndex((l) => / chars truncated…/.test(l));
  const from = /^\s*(\d+)\t/.exec(lines[cut] ?? '')?.[1];
  const to = /^\s*(\d+)\t/.exec(lines[cut + 1] ?? '')?.[1];
  return from && to ? { name: 'exec_command', input: { cmd: `cat -n ${file} | sed -n '${from},${Number(to) - 1}p'` } } : undefined;
}

/**
 * The session's model. `turn()` names the turn being run (the prompt says "step N: …"). Stateless
 * otherwise: the next call follows from the last tool call the history shows and its result.
 */
export function toolHeavyResponder(turn: () => number, project: string): Responder {
  return (req) => {
    const v = req.view;
    if (v.maxTokens !== undefined && v.maxTokens <= 16) return undefined; // a cache warm-up: the fake's own reply
    if (isSummaryRequest(v)) return { text: CHECKPOINT };
    const d = dialectOf(v);
    if (!d || v.messages.length === 0) return { text: 'ok' };
    const t = turn();
    const plan = intents(t);
    // a program may add its defaults to a call's input (Claude Code's replace_all): the scripted keys decide
    const calls = plan.map((it) => callOf(d, it, project));
    const done = `Step ${t} done: the limit is raised, ${t % 2 === 0 ? 'and the suite still has its one known failure' : 'and the related modules read'}.`;
    const call = (c: ToolCallReply): MessageReply => ({ toolCalls: [c] });
    // the last assistant tool call of this turn, and what it returned
    const last = v.messages.at(-1)!;
    const result = last.blocks.flatMap((b) => (b.type === 'tool_result' ? [b] : []))[0];
    if (!result) return call(callOf(d, plan[0]!, project));
    const newest = v.messages.length - 2;
    for (let i = newest; i >= 0; i--) {
      const uses = v.messages[i]!.blocks.flatMap((b) => (b.type === 'tool_use' ? [b] : []));
      if (uses.length === 0) continue;
      const use = uses.at(-1)!;
      if (use.name === 'Recall' || String(use.input.cmd).includes(' | sed -n ')) continue; // the read it follows decides what comes next
      const at = calls.findIndex(
        (c) => c.name === use.name && Object.entries(c.input ?? {}).every(([k, x]) => JSON.stringify(use.input[k]) === JSON.stringify(x)),
      );
      if (at < 0) return { text: done };
      const it = plan[at]!;
      const read = v.messages[i + 1]?.blocks.find((b) => b.type === 'tool_result');
      // an edit refused (Claude Code forgets what was read at a compaction): read the file again, then edit again
      if (it.kind === 'edit' && i === newest && result.isError) return call(callOf(d, { kind: 'read', file: it.file }, project));
      const refused = v.messages[i - 1]?.blocks.find((b) => b.type === 'tool_result');
      if (it.kind === 'read' && i === newest && refused?.type === 'tool_result' && refused.isError) return call(callOf(d, plan[3]!, project));
      if (it.kind === 'read' && read?.type === 'tool_result') {
        const rest = restOf(d, it.file, read.content, i === newest ? undefined : result.content);
        if (rest) return call(rest);
      }
      return at + 1 < plan.length ? call(callOf(d, plan[at + 1]!, project)) : { text: done };
    }
    return { text: done };
  };
}
