// Ranks the functions of CPU profiles (test/cpuSetup.ts writes one per test file with
// AGENT_TEST_PROFILE=<dir>) by the time spent in them and what they called, summed over the files:
//
//   node --import tsx scripts/rank-profiles.ts <dir or .cpuprofile files…> [--under <regexp>] [--top N]
//
// Each sample counts once for every function on its stack (inclusive time), idle samples not at
// all; --under keeps only the samples with a matching function on the stack (for example
// 'createRuntime' for what building a runtime costs). A function is "name path:line".
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { under: { type: 'string' }, top: { type: 'string', default: '40' } } });
const files = positionals.flatMap((p) =>
  statSync(p).isDirectory()
    ? readdirSync(p)
        .filter((f) => f.endsWith('.cpuprofile'))
        .map((f) => join(p, f))
    : [p],
);
const under = values.under === undefined ? undefined : new RegExp(values.under);
const name = (n: ProfileNode): string =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|test)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;

const inclusive = new Map<string, number>();
let total = 0;
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const time = new Map<number, number>();
  profile.samples.forEach((id, i) => time.set(id, (time.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  for (const [id, us] of time) {
    if (byId.get(id)?.callFrame.functionName === '(idle)') continue;
    const stack: string[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(name(byId.get(at)!));
    if (under && !stack.some((f) => under.test(f))) continue;
    total += us;
    for (const f of new Set(stack)) inclusive.set(f, (inclusive.get(f) ?? 0) + us);
  }
}
console.log(`${files.length} profiles, ${(total / 1e6).toFixed(1)} s sampled${under ? ` under ${under}` : ''} (idle left out)`);
for (const [f, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
  console.log(`${(us / 1e6).toFixed(2).padStart(8)} s ${((100 * us) / total).toFixed(1).padStart(5)}%  ${f}`);
