import { readdirSync, readFileSync } from 'node:fs';

// The process table as `ps -eo pid=,stat=,args=` shows it, read from /proc (Linux) in the test's
// own process: tests poll it every 50 ms while they wait for a command to start or stop, and
// each `ps` started from a test worker cost about 0.05 CPU-s (a fork of the large worker, then
// ps reading every process's files), several times what reading the command lines here costs.

/** A process's state letter (R, S, D, Z…), or undefined when there is no such process. */
export function processState(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // the fields after the command's closing parenthesis start with the state
  return stat.slice(stat.lastIndexOf(')') + 2).charAt(0) || undefined;
}

/** `pid state args` of every process whose command line contains `marker`, zombies left out. */
export function processesMatching(marker: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let args: string;
    try {
      args = readFileSync(`/proc/${name}/cmdline`, 'utf8');
    } catch {
      continue; // it exited while we looked
    }
    args = args.replace(/\0+$/, '').replaceAll('\0', ' ');
    if (!args.includes(marker)) continue;
    const state = processState(Number(name));
    if (state === undefined || state === 'Z' || state === 'X') continue;
    found.push(`${name} ${state} ${args}`);
  }
  return found;
}
