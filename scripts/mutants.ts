// Hand-mutation samples (docs/testing.md): draw one-line bugs from the newest code by a seeded
// generator, so that nobody chooses what to mutate, then apply each in turn, run the unit tests
// that cover its file, and restore it. Caught means a test failed.
//
//   node --import tsx scripts/mutants.ts draw --seed S --since 2026-12-04 --count 20 [--under src/a,src/b] [--exclude a.json …] > sample.json
//   node --import tsx scripts/mutants.ts run sample.json [--deep] [--only 3,7] >> results.jsonl
//   node --import tsx scripts/mutants.ts run sample.json --full plan.json >> results.jsonl
//
// draw lists the lines of src/**/*.ts(x) (top-level files too) that `git blame` dates on or after --since (comments,
// imports and type declarations left out), takes lines uniformly (files weigh by their new lines)
// and on each line one of the bugs it admits. run applies each mutant in this checkout (it must
// be clean under src/), runs `vitest run --project unit --project unit-fresh` on the test folder
// of the file's room and the unit files that import it (`--deep`: every unit file whose imports
// reach it, `vitest related`), restores the line whatever happens, and prints a JSON line each.
// `--full plan.json` is the fresh sample's whole procedure, one stage after another until one
// catches the mutant: the room's unit files, then every unit file reaching it, then tsc (the first
// step of `npm test`), then the end-to-end files the plan names for its id (`{"3": ["print",
// "resume"]}`, written before any result is read), in every end-to-end project; `by` names the stage.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { rng } from '../bench/rng.js';

interface Mutant {
  id: number;
  file: string;
  line: number;
  op: string;
  before: string;
  after: string;
}

/** A one-line bug: where it applies on a line, and what it writes there. */
interface Operator {
  name: string;
  pattern: RegExp;
  replace: (match: string) => string;
}

const swap =
  (pairs: Record<string, string>) =>
  (m: string): string =>
    pairs[m] ?? m;

const OPERATORS: Operator[] = [
  { name: 'equality flipped', pattern: /[!=]==/g, replace: swap({ '===': '!==', '!==': '===' }) },
  { name: 'comparison moved', pattern: /(?<= )(?:<=|>=|<|>)(?= )/g, replace: swap({ '<': '<=', '<=': '<', '>': '>=', '>=': '>' }) },
  { name: 'logic swapped', pattern: /&&|\|\|/g, replace: swap({ '&&': '||', '||': '&&' }) },
  { name: '?? made &&', pattern: /\?\?(?!=)/g, replace: () => '&&' },
  // a `!` right after a name, `)` or `]` is TypeScript's non-null assertion: dropping it changes types only (tsc's, never a test's)
  { name: 'negation dropped', pattern: /(?<![\w$)\]])!(?=[\w(.])/g, replace: () => '' },
  { name: 'boolean swapped', pattern: /\b(?:true|false)\b/g, replace: swap({ true: 'false', false: 'true' }) },
  { name: 'await dropped', pattern: /\bawait /g, replace: () => '' },
  {
    name: 'constant moved',
    pattern: /(?<![\w.$])\d[\d_]*(?![\w.])/g,
    replace: (m) => (m === '0' ? '1' : m === '1' ? '0' : String(Number(m.replace(/_/g, '')) + 1)),
  },
  { name: 'some/every swapped', pattern: /\.(?:some|every)\(/g, replace: swap({ '.some(': '.every(', '.every(': '.some(' }) },
  {
    name: 'startsWith/endsWith swapped',
    pattern: /\.(?:startsWith|endsWith)\(/g,
    replace: swap({ '.startsWith(': '.endsWith(', '.endsWith(': '.startsWith(' }),
  },
  { name: 'max/min swapped', pattern: /Math\.(?:max|min)\(/g, replace: swap({ 'Math.max(': 'Math.min(', 'Math.min(': 'Math.max(' }) },
  { name: 'trim dropped', pattern: /\.trim\(\)/g, replace: () => '' },
  { name: 'break/continue swapped', pattern: /\b(?:break|continue);/g, replace: swap({ 'break;': 'continue;', 'continue;': 'break;' }) },
];

/** Lines never mutated: comments, imports and exports of names, type declarations and their members. */
const NOT_CODE =
  /^(?:\/\/|\/?\*|import\b|export \{|export \* |export type\b|type\b|export interface\b|interface\b|(?:readonly )?[\w$]+\??: [^=()]*[;,]$|\}|\)|\]|$)/;

/** A function's or method's signature: its types are not behaviour. */
const SIGNATURE =
  /^(?!(?:if|for|while|switch|catch|return)\b)(?:(?:export|default|async|static|private|public|protected|override|function|get|set)\s+)*[\w$]*\s*(?:<.*>)?\(.*\)\s*(?::\s*.+)?\{$/;

/** A whole statement on one line that calls or assigns: dropping it is a mutation. */
const STATEMENT = /^(?:await )?(?:this\.)?[\w$.[\]'"]+(?:\(.*\)|\s*(?:[-+*/]|\?\?|\|\||&&)?=\s*.+);$/;

function balanced(text: string): boolean {
  let depth = 0;
  for (const c of text) {
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    if (depth < 0) return false;
  }
  return depth === 0;
}

/** The seeded generator: bench's mulberry32 over the seed's FNV-1a hash. */
function generator(seed: string): () => number {
  let h = 2166136261;
  for (const c of seed) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return rng(h);
}

/** Every mutation a line admits: each operator at each place it matches, and the statement's drop. */
function mutationsOf(text: string): Array<{ op: string; after: string }> {
  const code = text.trim();
  if (NOT_CODE.test(code) || SIGNATURE.test(code)) return [];
  // strings and template literals are left alone: a bug written into a message is found by reading it
  const masked = text.replace(/(['"`])(?:\\.|(?!\1).)*\1/g, (s) => ' '.repeat(s.length));
  const out: Array<{ op: string; after: string }> = [];
  for (const op of OPERATORS) {
    for (const m of masked.matchAll(op.pattern)) {
      const at = m.index ?? 0;
      const found = text.slice(at, at + m[0].length);
      const replaced = op.replace(found);
      if (replaced !== found) out.push({ op: op.name, after: text.slice(0, at) + replaced + text.slice(at + found.length) });
    }
  }
  if (STATEMENT.test(code) && balanced(code) && !/^return\b/.test(code)) {
    out.push({ op: 'statement dropped', after: text.replace(code, '/* dropped */') });
  }
  return out;
}

/** The lines of `file` whose commit is on or after `since` (UTC date), by `git blame`. */
function newLines(file: string, since: number): number[] {
  const porcelain = execFileSync('git', ['blame', '--line-porcelain', '--', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const lines: number[] = [];
  let line = 0;
  let time = 0;
  for (const row of porcelain.split('\n')) {
    const head = /^[0-9a-f]{40} \d+ (\d+)/.exec(row);
    if (head) line = Number(head[1]);
    else if (row.startsWith('committer-time ')) time = Number(row.slice(15)) * 1000;
    else if (row.startsWith('\t') && time >= since) lines.push(line);
  }
  return lines;
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
}

function draw(args: string[]): void {
  const seed = option(args, '--seed');
  const sinceText = option(args, '--since');
  if (!seed || !sinceText) throw new Error('draw needs --seed and --since');
  const since = Date.parse(`${sinceText}T00:00:00Z`);
  const count = Number(option(args, '--count') ?? '20');
  const excluded = new Set<string>();
  args.forEach((a, i) => {
    if (a !== '--exclude') return;
    const file = args[i + 1] ?? '';
    let sample: Mutant[];
    try {
      sample = JSON.parse(readFileSync(file, 'utf8')) as Mutant[];
    } catch (e) {
      // an empty file is a sample still being written (another draw's `> file`): its lines are not known yet
      throw new Error(`--exclude ${file}: not a sample (${e instanceof Error ? e.message : String(e)}); if a draw is still writing it, wait for it`);
    }
    for (const m of sample) excluded.add(`${m.file}:${m.line}`);
  });
  // --under src/a,src/b,src/c.ts: only the files under those folders, or those files
  const under = option(args, '--under')?.split(',');
  const files = execFileSync('git', ['ls-files', '--', 'src/*.ts', 'src/*.tsx'], { encoding: 'utf8' })
    .split('\n')
    .filter((f) => f !== '' && (!under || under.some((u) => f === u || f.startsWith(u.endsWith('/') ? u : `${u}/`))));
  const pool: Array<{ file: string; line: number; text: string }> = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8').split('\n');
    for (const line of newLines(file, since)) {
      const t = text[line - 1] ?? '';
      if (!excluded.has(`${file}:${line}`) && mutationsOf(t).length > 0) pool.push({ file, line, text: t });
    }
  }
  const random = generator(seed);
  const sample: Mutant[] = [];
  while (sample.length < count && pool.length > 0) {
    const [pick] = pool.splice(Math.floor(random() * pool.length), 1);
    if (!pick) break;
    const options = mutationsOf(pick.text);
    const chosen = options[Math.floor(random() * options.length)];
    if (chosen) sample.push({ id: sample.length + 1, file: pick.file, line: pick.line, op: chosen.op, before: pick.text, after: chosen.after });
  }
  process.stderr.write(`${pool.length + sample.length} mutable new lines in ${files.length} files; drew ${sample.length}\n`);
  process.stdout.write(`${JSON.stringify(sample, null, 1)}\n`);
}

/** The unit files that cover `file`: its room's test folder and the test files that import it by name. */
function coveringTests(file: string, deep: boolean): string[] {
  if (deep) return ['related', file];
  const room = file.split('/')[1] ?? '';
  const stem = basename(file).replace(/\.tsx?$/, '');
  const importers = spawnSync('git', ['grep', '-l', '-E', `/${stem}\\.js'`, '--', 'test'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((f) => /\.test\.tsx?$/.test(f) && !f.startsWith('test/e2e/'));
  const folder = room.endsWith('.ts') || room.endsWith('.tsx') ? [] : [`test/${room}/`];
  // a top-level file no unit file names: `vitest run` without targets would run the whole unit suite
  // (whose slow, timing-bound files then "catch" an unrelated mutant under load); the files reaching it instead
  if (folder.length === 0 && importers.length === 0) return ['related', file];
  return ['run', ...new Set([...folder, ...importers])];
}

const UNIT_PROJECTS = ['unit', 'unit-fresh'];
const E2E_PROJECTS = ['e2e', 'e2e-4-5', 'e2e-fresh'];

/** tsc over the project, as `npm test` runs it first: the error lines (none: it passed). */
function typeErrors(): string[] {
  const child = spawnSync('npm', ['run', '--silent', 'typecheck'], { encoding: 'utf8', timeout: 15 * 60_000, maxBuffer: 64 << 20 });
  if (child.status === 0) return [];
  const errors = (child.stdout ?? '').split('\n').filter((l) => l.includes('error TS'));
  return errors.length > 0 ? errors : [`tsc exited ${child.status ?? child.signal}`];
}

/** Runs vitest's unit projects (`mode` run or related, on `targets`); the failed tests as "file: name". */
function vitest(mode: string, targets: string[], tag: string, projects = UNIT_PROJECTS): { failed: string[]; total: number } {
  const report = `/tmp/mutant-${process.pid}-${tag}.json`;
  const child = spawnSync(
    'npx',
    ['vitest', mode, ...targets, ...projects.flatMap((p) => ['--project', p]), '--reporter=json', `--outputFile=${report}`, '--passWithNoTests'],
    {
      encoding: 'utf8',
      timeout: 15 * 60_000,
      maxBuffer: 256 << 20,
    },
  );
  const relative = (name: string): string => name.replace(`${process.cwd()}/`, '');
  try {
    const json = JSON.parse(readFileSync(report, 'utf8')) as {
      numTotalTests: number;
      testResults: Array<{ name: string; message?: string; assertionResults: Array<{ fullName: string; status: string }> }>;
    };
    const failed = json.testResults.flatMap((f) => {
      const tests = f.assertionResults.filter((a) => a.status === 'failed').map((a) => `${relative(f.name)}: ${a.fullName}`);
      return tests.length === 0 && f.message ? [`${relative(f.name)}: ${f.message.split('\n')[0]}`] : tests;
    });
    // the worker died under the mutant (a loop that never ends ran it out of memory): vitest exits 1 yet reports the
    // tests it never finished as pending, none failed; those files failed (rerun unmutated like any failure)
    if (failed.length === 0 && child.status !== 0) {
      for (const f of json.testResults) {
        const unfinished = f.assertionResults.filter((a) => a.status === 'pending').length;
        if (unfinished > 0)
          failed.push(`${relative(f.name)}: vitest exited ${child.status ?? child.signal} with ${unfinished} tests unfinished (a crash or a hang)`);
      }
    }
    return { failed, total: json.numTotalTests };
  } catch {
    return { failed: child.status === 0 ? [] : [`vitest exited ${child.status ?? child.signal}: ${(child.stderr ?? '').slice(-300)}`], total: 0 };
  }
}

type Stage = 'unit' | 'deep' | 'tsc' | 'e2e';

/** What one stage's tests say of the mutant already written into the checkout: the failures, and how many tests ran. */
function attempt(m: Mutant, stage: Stage, plan: Record<string, string[]>): { failed: string[]; total: number } {
  if (stage === 'tsc') return { failed: typeErrors(), total: 1 };
  if (stage === 'e2e')
    return vitest(
      'run',
      (plan[String(m.id)] ?? []).map((name) => `test/e2e/${name}.test.ts`),
      `${m.id}-e2e`,
      E2E_PROJECTS,
    );
  const [mode, ...targets] = coveringTests(m.file, stage === 'deep');
  return vitest(mode ?? 'run', targets, `${m.id}-${stage}`);
}

function run(args: string[]): void {
  const samplePath = args[0];
  if (!samplePath) throw new Error('run needs the sample file');
  const deep = args.includes('--deep');
  const planPath = option(args, '--full');
  const plan = planPath ? (JSON.parse(readFileSync(planPath, 'utf8')) as Record<string, string[]>) : {};
  const stages: Stage[] = planPath ? ['unit', 'deep', 'tsc', 'e2e'] : [deep ? 'deep' : 'unit'];
  const only = option(args, '--only')?.split(',').map(Number);
  const sample = (JSON.parse(readFileSync(samplePath, 'utf8')) as Mutant[]).filter((m) => !only || only.includes(m.id));
  // tsc catches a mutant only where it passes without one
  const tscClean = planPath ? typeErrors().length === 0 : false;
  for (const m of sample) {
    const original = readFileSync(m.file, 'utf8');
    const lines = original.split('\n');
    if (lines[m.line - 1] !== m.before) {
      process.stdout.write(`${JSON.stringify({ id: m.id, file: m.file, line: m.line, result: 'stale', note: 'the line changed since the draw' })}\n`);
      continue;
    }
    lines[m.line - 1] = m.after;
    const restore = (): void => writeFileSync(m.file, original);
    const interrupted = (): never => {
      restore();
      process.exit(130);
    };
    process.once('SIGINT', interrupted);
    const started = Date.now();
    let failed: string[] = [];
    let alsoUnmutated: string[] = [];
    let total = 0;
    let by: Stage | undefined;
    const tried: Stage[] = [];
    for (const stage of stages) {
      if ((stage === 'tsc' && !tscClean) || (stage === 'e2e' && (plan[String(m.id)] ?? []).length === 0)) continue;
      tried.push(stage);
      let outcome: { failed: string[]; total: number };
      try {
        writeFileSync(m.file, lines.join('\n'));
        outcome = attempt(m, stage, plan);
      } finally {
        restore();
      }
      // a test that fails without the mutant too (under load, or broken here) catches nothing
      alsoUnmutated = [];
      if (outcome.failed.length > 0 && stage !== 'tsc') {
        const files = [...new Set(outcome.failed.map((f) => f.slice(0, f.indexOf(': '))))].filter((f) => /\.test\.tsx?$/.test(f));
        const projects = stage === 'e2e' ? E2E_PROJECTS : UNIT_PROJECTS;
        if (files.length > 0) alsoUnmutated = vitest('run', files, `${m.id}-${stage}-unmutated`, projects).failed;
      }
      failed = outcome.failed.filter((f) => !alsoUnmutated.includes(f));
      total = outcome.total;
      if (failed.length > 0) {
        by = stage;
        break;
      }
    }
    process.removeListener('SIGINT', interrupted);
    const line = {
      id: m.id,
      file: m.file,
      line: m.line,
      op: m.op,
      after: m.after.trim(),
      // no test ran (vitest crashed or found none under load, or the room has none): not a survivor to pin, a run to repeat
      result: by ? 'caught' : total === 0 ? 'no tests ran' : 'survived',
      by,
      tried,
      tests: total,
      failed: failed.slice(0, 5),
      alsoUnmutated,
      seconds: Math.round((Date.now() - started) / 1000),
      deep,
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  }
}

const [command, ...rest] = process.argv.slice(2);
process.chdir(dirname(dirname(new URL(import.meta.url).pathname)));
if (command === 'draw') draw(rest);
else if (command === 'run') run(rest);
else {
  process.stderr.write(
    'usage: mutants.ts draw --seed S --since YYYY-MM-DD [--count N] [--under src/a,src/b] [--exclude sample.json]… | run sample.json [--deep | --full plan.json] [--only 1,2]\n',
  );
  process.exitCode = 2;
}
