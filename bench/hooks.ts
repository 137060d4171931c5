import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCustomCommands } from '../src/commands/custom.js';
import { Hooks } from '../src/hooks/hooks.js';
import { ProjectTrust } from '../src/trust/projectTrust.js';

// What hooks and custom commands cost: a tool call's wait for a PreToolUse hook (`true`, and a
// script that reads its JSON with `cat`) against a tool call with no hook configured, measured
// in the same interleaved runs; and loading 200 command files with frontmatter at start-up.

const RUNS = 30;
const dir = mkdtempSync(join(tmpdir(), 'bench-hooks-'));
const trust = new ProjectTrust(join(dir, 'trust.json'));
const make = (command: string | undefined): Hooks =>
  new Hooks({
    sources: command ? [{ file: join(dir, '.agentrc'), scope: 'user', dir, hooks: { PreToolUse: [{ matcher: 'Bash', command }] } }] : [],
    sessionId: 's_bench',
    cwd: dir,
    env: { PATH: process.env['PATH'] ?? '', HOME: dir },
    toolNames: ['Bash'],
    trust,
    trustProject: false,
    report: () => {},
  });
const cases = { none: make(undefined), true: make('true'), cat: make('cat > /dev/null') };
const times: Record<string, number[]> = { none: [], true: [], cat: [] };
const data = { tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_use_id: 'toolu_1' };
for (let i = 0; i < RUNS; i++) {
  for (const [name, hooks] of Object.entries(cases)) {
    const t = performance.now();
    await hooks.run('PreToolUse', 'Bash', data);
    times[name]!.push(performance.now() - t);
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`PreToolUse per tool call, median of ${RUNS} interleaved runs:`);
for (const name of Object.keys(times)) console.log(`  ${name.padEnd(5)} ${median(times[name]!).toFixed(2)} ms`);

const cmds = join(dir, 'commands');
for (let i = 0; i < 200; i++) {
  const sub = join(cmds, `ns${i % 10}`);
  mkdirSync(sub, { recursive: true });
  writeFileSync(
    join(sub, `c${i}.md`),
    `---\ndescription: command ${i}\nargument-hint: <file>\nallowed-tools: Bash(git diff:*), Read\n---\nDo thing ${i} with $1.\n`,
  );
}
const loads: number[] = [];
for (let i = 0; i < 10; i++) {
  const t = performance.now();
  const loaded = await loadCustomCommands([{ dir: cmds, source: 'project' }], ['help']);
  loads.push(performance.now() - t);
  if (loaded.commands.length !== 200) throw new Error(`loaded ${loaded.commands.length} commands, not 200`);
}
const empty: number[] = [];
for (let i = 0; i < 10; i++) {
  const t = performance.now();
  await loadCustomCommands([{ dir: join(dir, 'missing'), source: 'project' }], ['help']);
  empty.push(performance.now() - t);
}
console.log(
  `Loading custom commands, median of 10: 200 files with frontmatter ${median(loads).toFixed(1)} ms (first ${loads[0]!.toFixed(1)} ms, yaml loaded); no command directory ${median(empty).toFixed(2)} ms`,
);
