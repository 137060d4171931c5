import { getPriority } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSteps, type Step } from '../../scripts/steps.js';
import { tempDir } from '../tempDirs.js';

// `npm test`'s runner (scripts/steps.ts) with tiny steps: real node processes.
const node = (name: string, code: string, live?: boolean): Step => ({ name, command: process.execPath, args: ['-e', code], live });

/** Runs the steps, returning the result and what the runner wrote, in order. */
async function run(steps: Step[]) {
  const written: string[] = [];
  const result = await runSteps(steps, (text) => written.push(text));
  return { result, written, log: written.join('') };
}

/** A step that writes its lines `a`, `b`, `c` on stdout and stderr by turns, a tick apart. */
const chatty = (name: string): Step =>
  node(
    name,
    `let i = 0; const t = setInterval(() => { (i % 2 ? process.stderr : process.stdout).write('${name}-' + i + '\\n'); if (++i === 6) clearInterval(t); }, 5);`,
  );

describe('npm test: the steps side by side', () => {
  it('prints each kept step whole when it ends, then one line a step, and passes when every step does', async () => {
    const { result, written, log } = await run([chatty('one'), chatty('two'), node('quiet', '')]);
    expect(result.ok).toBe(true);
    expect(result.steps.map((s) => [s.name, s.ok, s.how])).toEqual([
      ['one', true, 'exit 0'],
      ['two', true, 'exit 0'],
      ['quiet', true, 'exit 0'],
    ]);
    // a step's output is one piece, its stdout and stderr (two pipes: their lines may come in either order), never mixed with another's
    for (const name of ['one', 'two']) {
      const [head, ...lines] = written
        .find((w) => w.includes(`── ${name}: ok in `))!
        .trim()
        .split('\n');
      expect(head).toMatch(new RegExp(`^── ${name}: ok in \\d+\\.\\d s$`));
      expect(lines.sort()).toEqual([0, 1, 2, 3, 4, 5].map((i) => `${name}-${i}`));
    }
    expect(log).toMatch(/── quiet: ok in \d+\.\d s\n\(no output\)\n/);
    expect(written.at(-1)).toMatch(/^\nok {5}one {3}\s+\d+\.\d s\nok {5}two {3}\s+\d+\.\d s\nok {5}quiet\s+\d+\.\d s\nall 3 steps passed, \d+\.\d s wall\n$/);
    // mutation: `ok: true` in runSteps' result whatever the steps did fails the next test instead
  });

  it('fails when any step fails, naming each: an exit code, a signal, a command that does not start', async () => {
    const missing = join(tempDir('agent-steps-'), 'no-such-command');
    const { result, log } = await run([
      node('passes', 'console.log("fine")'),
      node('exits', 'console.error("broken"); process.exitCode = 3'),
      node('killed', 'process.kill(process.pid, "SIGKILL")'),
      { name: 'missing', command: missing, args: [] },
    ]);
    expect(result.ok).toBe(false);
    expect(result.steps.map((s) => [s.name, s.ok])).toEqual([
      ['passes', true],
      ['exits', false],
      ['killed', false],
      ['missing', false],
    ]);
    expect(log).toContain('── exits: FAILED (exit 3) in ');
    expect(log).toMatch(/── exits: FAILED \(exit 3\) in \d+\.\d s\nbroken\n/);
    expect(log).toContain('── killed: FAILED (SIGKILL) in ');
    expect(log).toMatch(/── missing: FAILED \(did not start: spawn \S+no-such-command ENOENT\)/);
    expect(log).toMatch(/FAILED exits\s+\d+\.\d s {2}\(exit 3\)\n/);
    expect(log.trimEnd().split('\n').at(-1)).toMatch(/^FAILED: exits, killed, missing, \d+\.\d s wall$/);
  });

  it('runs the steps at the same time: each waits for a file the other writes', async () => {
    const dir = tempDir('agent-steps-');
    // each writes its mark, then waits (at most 20 s) for the other's: one after another, the first would give up
    // (the live one says nothing: its output would land in this test's own)
    const meet = (me: string, other: string, said: string): string =>
      `const fs = require('node:fs'); fs.writeFileSync(${JSON.stringify(join(dir, me))}, ''); const t0 = Date.now();
       const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(join(dir, other))})) { clearInterval(t); process.stdout.write(${JSON.stringify(said)}); }
       else if (Date.now() - t0 > 20000) { clearInterval(t); console.log('alone'); process.exitCode = 1; } }, 10);`;
    const { result, log } = await run([node('a', meet('a', 'b', 'met\n')), node('b', meet('b', 'a', ''), true)]);
    expect(log).toMatch(/── a: ok in \d+\.\d s\nmet\n/);
    // the live step's output went to this process's stdout, not into the log: only its line is there
    expect(log).toMatch(/\n── b: ok in \d+\.\d s\n\n/);
    expect(result.ok).toBe(true);
  });
  it('runs a step given a niceness at it, and its children too', async () => {
    const child = `require('node:child_process').execFileSync(process.execPath, ['-e', 'process.stdout.write(String(require("node:os").getPriority()))'], { stdio: 'inherit' })`;
    const { result, log } = await run([
      { ...node('low', `process.stdout.write(require('node:os').getPriority() + ' '); ${child}`), nice: 19 },
      node('normal', `process.stdout.write(String(require('node:os').getPriority()))`),
    ]);
    expect(result.ok).toBe(true);
    expect(log).toMatch(/── low: ok in \d+\.\d s\n19 19\n/);
    expect(log).toContain(`── normal: ok in `);
    expect(log).toMatch(new RegExp(`── normal: ok in \\d+\\.\\d s\\n${getPriority()}\\n`));
  });
});
