import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCustomCommands } from '../src/commands/custom.js';
import { findSkills } from '../src/skills/catalog.js';
import { listingBudget } from '../src/skills/listing.js';

// Issue 33: discovering 200 skills (SKILL.md folders with frontmatter, spread over .claude/skills,
// .agents/skills and the person's ~/.claude/skills) at start-up, against a project with none and
// against 200 custom command files with the same frontmatter (read with the YAML library), in the
// same interleaved runs; and the listing of those 200 within its budget (~2% of the window).
// Goal: 200 skills under 100 ms.

const RUNS = 15;
const root = mkdtempSync(join(tmpdir(), 'bench-skills-'));
const project = join(root, 'project');
const home = join(root, 'home');
const empty = join(root, 'empty');
mkdirSync(join(project, '.git'), { recursive: true });
mkdirSync(empty);
const dirs = [join(project, '.claude', 'skills'), join(project, '.agents', 'skills'), join(home, '.claude', 'skills')];
for (let i = 0; i < 200; i++) {
  const dir = join(dirs[i % 3]!, `skill-${i}`);
  mkdirSync(join(dir, 'scripts'), { recursive: true });
  const description = `Does task number ${i} when the user asks for thing ${i}, follow these steps and run the script beside it. `.repeat(3);
  writeFileSync(
    join(dir, 'SKILL.md'),
    `---\nname: skill-${i}\ndescription: ${description.trim()}\nlicense: MIT\nallowed-tools: Bash(bash:*) Read\nmetadata:\n  version: "1.${i}"\n---\n# Skill ${i}\n\n${'Step by step instructions. '.repeat(80)}\n`,
  );
  writeFileSync(join(dir, 'scripts', 'run.sh'), `echo ${i}\n`);
}
const env = { HOME: home, PATH: process.env['PATH'] ?? '' };
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const cmds = join(root, 'commands');
mkdirSync(cmds);
for (let i = 0; i < 200; i++)
  writeFileSync(
    join(cmds, `c${i}.md`),
    `---\ndescription: Does task number ${i} when asked\nlicense: MIT\nallowed-tools: Bash(bash:*) Read\n---\nDo thing ${i}.\n`,
  );
const full: number[] = [];
const none: number[] = [];
const commands: number[] = [];
let first = 0;
for (let i = 0; i < RUNS; i++) {
  let t = performance.now();
  const catalog = await findSkills(project, env);
  const took = performance.now() - t;
  if (i === 0) first = took;
  full.push(took);
  if (catalog.list().length !== 200) throw new Error(`found ${catalog.list().length} skills, not 200: ${catalog.warnings.join('; ')}`);
  t = performance.now();
  await findSkills(empty, { HOME: empty });
  none.push(performance.now() - t);
  t = performance.now();
  await loadCustomCommands([{ dir: cmds, source: 'project' }], []);
  commands.push(performance.now() - t);
}
const catalog = await findSkills(project, env);
console.log(
  `Discovery, median of ${RUNS} interleaved runs: 200 skills ${median(full).toFixed(1)} ms (first ${first.toFixed(1)} ms, modules compiling; goal < 100 ms); no skill folder ${median(none).toFixed(2)} ms; 200 custom command files ${median(commands).toFixed(1)} ms (skills ÷ commands ${(median(full) / median(commands)).toFixed(2)})`,
);
for (const window of [200_000, 128_000, 32_000]) {
  const listing = catalog.listing(window);
  const listed = (listing.match(/^- skill-/gm) ?? []).length;
  console.log(
    `Listing for a ${window.toLocaleString('en-US')}-token window: ${listing.length.toLocaleString('en-US')} of ${listingBudget(window).toLocaleString('en-US')} characters budgeted (${((listing.length / listingBudget(window)) * 100).toFixed(0)}%), ${listed} of 200 described${listing.length > listingBudget(window) ? ' — OVER BUDGET' : ''}`,
  );
}
rmSync(root, { recursive: true, force: true });
