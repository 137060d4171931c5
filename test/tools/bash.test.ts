import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inWorld, type World, world } from '../../src/runtime/world.js';
import { traitsOf } from '../../src/tools/kinds.js';
import { createBashTool } from '../../src/tools/bash.js';
import { spillPreview } from '../../src/tools/spill.js';
import type { AnyTool, CommandSandbox, SandboxPlan } from '../../src/tools/types.js';
import { until, within } from '../support/deadline.js';
import { call, ctx, tree } from './helpers.js';

const bash = createBashTool({ timeoutMs: 20_000, maxTimeoutMs: 60_000, maxOutputChars: 30_000 }) as AnyTool;

/** Whether a process still runs (a zombie waiting to be reaped counts as gone). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Whether the process is gone within a short while. A signal is delivered when the process is
 * next scheduled, so on a busy machine a killed `sleep` can still be running a moment after the
 * kill; a process nobody killed (these sleep for 30 s) is still there when the time is up.
 */
async function diesSoon(pid: number, withinMs = 3000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

const readPids = (file: string): number[] => readFileSync(file, 'utf8').split(/\s+/).filter(Boolean).map(Number);

describe('Bash', () => {
  it('interleaves stdout and stderr in the order they were written', async () => {
    const out = await call(bash, { command: 'echo a; echo b >&2; echo c; echo d >&2; echo e' }, ctx(tree()));
    expect(out).toEqual({ content: 'a\nb\nc\nd\ne', isError: false });
  });

  it('runs in cwd, through bash, and says when there is no output', async () => {
    const root = tree({ 'marker.txt': 'x' });
    expect((await call(bash, { command: 'ls; echo ${BASH_VERSION:+bash}' }, ctx(root))).content).toBe('marker.txt\nbash');
    expect(await call(bash, { command: 'true' }, ctx(root))).toEqual({ content: '(no output)', isError: false });
  });

  it('reports a non-zero exit code with the output', async () => {
    const out = await call(bash, { command: 'echo building; echo "error: bad" >&2; exit 3' }, ctx(tree()));
    expect(out).toEqual({ content: 'building\nerror: bad\n\nExit code 3', isError: true });
  });

  it('reports death by signal', async () => {
    const out = await call(bash, { command: 'echo before; kill -9 $$' }, ctx(tree()));
    expect(out).toEqual({ content: 'before\n\nKilled by signal SIGKILL', isError: true });
  });

  it('strips ANSI codes and reduces carriage-return redraws to what stays on screen', async () => {
    const out = await call(bash, { command: String.raw`printf '\033[1;31mred\033[0m plain\n10%%\r50%%\r100%%\nwin\r\nend'` }, ctx(tree()));
    expect(out.content).toBe('red plain\n100%\nwin\nend');
  });

  it('does not wait for stdin', async () => {
    const out = await call(bash, { command: 'read -r line; echo "read:[$line] rc=$?"; cat; echo done' }, ctx(tree()));
    expect(out.content).toBe('read:[] rc=1\ndone');
  }, 10_000);

  it('has no terminal to prompt on', async () => {
    const out = await call(bash, { command: 'exec 3</dev/tty && echo has-tty || echo no-tty' }, ctx(tree()));
    expect(out.content).toContain('no-tty');
  }, 10_000);

  it('kills the command and its children (even those ignoring SIGTERM) on timeout', async () => {
    const root = tree();
    const pids = join(root, 'pids');
    const command = `sleep 30 & echo $! >> ${pids}; bash -c 'trap "" TERM; sleep 30 & echo $! >> ${pids}; wait' & echo $! >> ${pids}; echo started; sleep 30`;
    const out = await call(bash, { command, timeout: 1500 }, ctx(root));
    expect(out.isError).toBe(true);
    expect(out.content).toBe('Command timed out after 1.5s; partial output:\nstarted');
    const children = readPids(pids);
    expect(children).toHaveLength(3);
    for (const pid of children) expect(await diesSoon(pid), `pid ${pid}`).toBe(true);
  }, 15_000);

  it('is interrupted through the abort signal, killing the tree', async () => {
    const root = tree();
    const pids = join(root, 'pids');
    const ac = new AbortController();
    const running = call(bash, { command: `echo working; sleep 30 & echo $! > ${pids}; sleep 30` }, ctx(root, { signal: ac.signal }));
    // issue 30: a cancellation that never happens fails fast with an assertion (it waited on `sleep 30`)
    await until(() => existsSync(pids) && readFileSync(pids, 'utf8').endsWith('\n'), 'the command to write its pids', 5_000);
    ac.abort();
    const out = await within(running, 'the command to end once aborted', 5_000);
    expect(out).toEqual({ content: 'Command interrupted; partial output:\nworking', isError: true });
    for (const pid of readPids(pids)) expect(await diesSoon(pid), `pid ${pid}`).toBe(true);
  }, 15_000);

  it('does not start when already cancelled', async () => {
    const ac = new AbortController();
    ac.abort();
    const root = tree();
    const out = await call(bash, { command: `touch ${join(root, 'ran')}` }, ctx(root, { signal: ac.signal }));
    expect(out.isError).toBe(true);
    expect(() => readFileSync(join(root, 'ran'))).toThrow();
  });

  it('returns when the shell exits even if a background process keeps the pipe open', async () => {
    const out = await call(bash, { command: 'sleep 30 & echo $!; echo started' }, ctx(tree()));
    const [pid, second] = out.content.split('\n');
    expect(second).toBe('started');
    expect(alive(Number(pid))).toBe(true);
    process.kill(Number(pid), 'SIGKILL');
  }, 10_000);

  it('caps flooding output to head + tail with an exact account of what was cut', async () => {
    const small = createBashTool({ timeoutMs: 20_000, maxTimeoutMs: 60_000, maxOutputChars: 1000 }) as AnyTool;
    const out = await call(small, { command: 'seq 1 200000' }, ctx(tree()));
    expect(out.isError).toBe(false);
    expect(out.content.length).toBeLessThan(1100);
    expect(out.content.startsWith('1\n2\n3\n')).toBe(true);
    expect(out.content.endsWith('199999\n200000')).toBe(true);
    const m = /… \[([\d,]+) characters \(([\d,]+) lines\) cut from the middle of the output\] …/.exec(out.content);
    expect(m).not.toBeNull();
    const total = Array.from({ length: 200_000 }, (_, i) => `${i + 1}\n`).join('').length;
    const kept = out.content.length - (m![0].length + 1); // the marker has a line of its own
    // shown + cut = everything printed, less the final newline that is trimmed
    expect(Number(m![1]!.replace(/,/g, '')) + kept).toBe(total - 1);
  }, 15_000);

  // issue 30: an output ending in a newline (most do) was told to the model and to Ctrl+O as
  // "1 characters after that were not kept", far below the cap. Counting the whole output before
  // the trailing whitespace is trimmed (the old code) fails the first two expectations.
  it('hands the spill the whole output with its true size: trailing newlines trimmed are no cap', async () => {
    const small = createBashTool({ timeoutMs: 20_000, maxTimeoutMs: 60_000, maxOutputChars: 1000 }) as AnyTool;
    const out = await call(small, { command: 'seq 1 20000; printf "\\n\\n"' }, ctx(tree()));
    const full = out.full!;
    expect(full.totalChars).toBe(full.text.length);
    expect(spillPreview(full, 'o1')).not.toContain('not kept');
    expect(full.text.endsWith('19999\n20000')).toBe(true);
    expect(full.totalLines).toBe(20_000);
    expect(full.totalBytes).toBe(Buffer.byteLength(full.text));
    // a command that fails: the exit line is part of the whole output, counted once
    const failed = await call(small, { command: 'seq 1 20000; exit 3' }, ctx(tree()));
    expect(failed.full!.text.endsWith('20000\n\nExit code 3')).toBe(true);
    expect(failed.full!.totalChars).toBe(failed.full!.text.length);
    expect(failed.full!.totalLines).toBe(20_002);
  }, 15_000);

  it('keeps memory bounded while a command floods (100 MB of output)', async () => {
    const before = process.memoryUsage().heapUsed;
    const out = await call(bash, { command: 'yes | head -c 100000000' }, ctx(tree()));
    const grown = process.memoryUsage().heapUsed - before;
    expect(out.content.length).toBeLessThan(31_000);
    expect(out.content).toContain('cut from the middle');
    expect(grown).toBeLessThan(60 * 1024 * 1024);
  }, 30_000);

  it('reduces a timeout above the maximum to the maximum', () => {
    expect(bash.parse({ command: 'x', timeout: 10_000_000 })).toEqual({ command: 'x', timeout: 60_000 });
    expect(() => bash.parse({ command: '' })).toThrow(/"command"/);
    expect(() => bash.parse({ command: 'x', timeout: -1 })).toThrow(/"timeout"/);
  });

  it("gives a command the run's environment without the provider keys (or the variables it is told to hide)", async () => {
    // a world of its own: this run's environment holds a key, the process's stays as it is
    const run: World = Object.assign(Object.create(world()) as World, {
      env: { ...world().env, ANTHROPIC_API_KEY: 'sk-ant-SECRET', AGENT_TEST_KEPT: 'kept', AGENT_TEST_HIDDEN: 'hidden' },
      slots: new Map(),
    });
    const show = { command: 'echo "[${ANTHROPIC_API_KEY-unset}] [${AGENT_TEST_KEPT-unset}] [${AGENT_TEST_HIDDEN-unset}] [$GIT_PAGER]"' };
    expect((await inWorld(run, () => call(bash, show, ctx(tree())))).content).toBe('[unset] [kept] [hidden] [cat]');
    const hiding = createBashTool({ timeoutMs: 20_000, maxTimeoutMs: 60_000, maxOutputChars: 30_000, hideEnv: (n) => n === 'AGENT_TEST_HIDDEN' }) as AnyTool;
    expect((await inWorld(run, () => call(hiding, show, ctx(tree())))).content).toBe('[sk-ant-SECRET] [kept] [unset] [cat]');
  });

  it("asks the sandbox's plan whether the model asked to leave it, wraps the command with the provider keys hidden from the wrap's variables, and tells its denials", async () => {
    const asked: Array<[string, boolean]> = [];
    let plan: SandboxPlan = { kind: 'outside', reason: 'excluded' };
    const sandbox: CommandSandbox = {
      escapable: true,
      plan: (command, leave) => {
        asked.push([command, leave]);
        return plan;
      },
      // the wrap runs the command as it is, adding one variable of its own and a key (hidden from the command)
      wrap: async (command, shell) => ({ argv: [shell, '-c', command], env: { AGENT_TEST_WRAP: 'wrapped', OPENAI_API_KEY: 'sk-wrap-SECRET' } }),
      denials: (_id, output) => (output.includes('touch') ? ['/etc/x (write)'] : []),
    };
    const boxed = createBashTool({ timeoutMs: 20_000, maxTimeoutMs: 60_000, maxOutputChars: 30_000, sandbox }) as AnyTool;
    // mutations: `leave` flipped for the gate's plan (sandboxPlan) or the run's (placement)
    expect(boxed.sandboxPlan?.(boxed.parse({ command: 'ls', dangerouslyDisableSandbox: true }))).toBe(plan);
    expect(boxed.sandboxPlan?.(boxed.parse({ command: 'ls' }))).toBe(plan);
    // excluded: run as it is, without the wrap's variable
    expect((await call(boxed, { command: 'echo "[${AGENT_TEST_WRAP-plain}]"' }, ctx(tree()))).content).toBe('[plain]');
    expect(asked).toEqual([
      ['ls', true],
      ['ls', false],
      ['echo "[${AGENT_TEST_WRAP-plain}]"', false],
    ]);
    plan = { kind: 'inside', autoAllow: true };
    const show = { command: 'echo "[${AGENT_TEST_WRAP-plain}] [${OPENAI_API_KEY-unset}]"' };
    expect((await call(boxed, show, ctx(tree()))).content).toBe('[wrapped] [unset]');
    // what the sandbox denied comes after the output (mutation: denials found but the plain result returned)
    const denied = await call(boxed, { command: 'echo touch' }, ctx(tree()));
    expect(denied.content).toMatch(/^touch\n\n\[sandbox\] The sandbox denied this command:\n- \/etc\/x \(write\)\n/);
  });

  it('runs with sh when told to', async () => {
    const sh = createBashTool({ timeoutMs: 20_000, maxTimeoutMs: 60_000, maxOutputChars: 30_000, shell: '/bin/sh' }) as AnyTool;
    expect(await call(sh, { command: 'echo out; echo err >&2; exit 2' }, ctx(tree()))).toEqual({ content: 'out\nerr\n\nExit code 2', isError: true });
  });

  it('reports a working directory that does not exist', async () => {
    const out = await call(bash, { command: 'echo hi' }, ctx('/nonexistent/dir/for/agent/tests'));
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/^Could not run the command: /);
  });

  it('summarizes as the full command and is not read-only', () => {
    expect(bash.summarize(bash.parse({ command: 'npm test -- --run' }))).toBe('npm test -- --run');
    expect(bash.kind).toBe('execute');
    expect(traitsOf(bash)).toMatchObject({ readOnly: false, mutating: true, compactable: true, spills: true });
  });
});
