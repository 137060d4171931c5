// /tasks: the background commands of this run (the session's own first, then its sub-agents'),
// each with its state, how long it ran and how much it printed (the TUI opens them in a panel
// whose keys run the forms below); `/tasks view <id>` shows its last lines, `/tasks stop <id>`
// stops one (its whole group: SIGTERM, SIGKILL after the grace period), `/tasks stop all` every
// one. A sub-agent's command is named `<session id>/<id>` where its id alone is the session's own.
// A stopped command's end is told to the model at its next request.
import type { TaskRowView } from '../protocol/views.js';
import { fmtBytes, fmtDuration } from '../tools/format.js';
import type { BackgroundCommands, RunningCommand } from './commands.js';
import { lastLinesOf } from './notice.js';
import { describeState } from './record.js';

const VIEW_LINES = 40;

export class TasksError extends Error {
  override readonly name = 'TasksError';
}

function row(r: RunningCommand, own: boolean, now: number): string {
  const ran = fmtDuration(Math.max(0, (r.endedAt ?? now) - r.startedAt));
  const one = r.command.replace(/\s+/g, ' ').trim();
  const command = one.length > 70 ? `${one.slice(0, 69)}…` : one;
  return `  ${r.id.padEnd(4)} ${describeState(r).padEnd(12)} ${ran.padStart(7)}  ${fmtBytes(r.bytes).padStart(9)}  ${command}${own ? '' : ` (sub-agent ${r.sessionId})`}`;
}

/** The rows of the /tasks panel: the session's own commands first, then its sub-agents'. */
export function taskRows(commands: BackgroundCommands, sessionId: string, now = Date.now()): TaskRowView[] {
  const all = commands.list();
  const ordered = [...all.filter((r) => r.sessionId === sessionId), ...all.filter((r) => r.sessionId !== sessionId)];
  return ordered.map((r) => ({
    id: r.id,
    sessionId: r.sessionId,
    own: r.sessionId === sessionId,
    command: r.command,
    state: describeState(r),
    running: r.state === 'running',
    ran: fmtDuration(Math.max(0, (r.endedAt ?? now) - r.startedAt)),
    output: fmtBytes(r.bytes),
    pid: r.pid,
  }));
}

/** Runs `/tasks [view <id> | stop <id> | stop all]` for the session `sessionId`; returns what to show. */
export async function tasksCommand(commands: BackgroundCommands | undefined, sessionId: string, args: string, now = Date.now()): Promise<string> {
  if (!commands) return 'Background commands are not available in this run.';
  const all = commands.list();
  const [verb = '', target = ''] = args.trim().split(/\s+/);
  const find = (named: string): RunningCommand => {
    const [session, id] = named.includes('/') ? [named.slice(0, named.lastIndexOf('/')), named.slice(named.lastIndexOf('/') + 1)] : [sessionId, named];
    const found = all.find((r) => r.id === id && r.sessionId === session) ?? all.find((r) => r.id === id && !named.includes('/'));
    if (!found) throw new TasksError(`no background command ${named || '(none named)'}; /tasks lists them`);
    return found;
  };
  if (verb === '') {
    if (all.length === 0) return 'No background commands in this run. The model starts one with Bash run_in_background.';
    const mine = all.filter((r) => r.sessionId === sessionId);
    const theirs = all.filter((r) => r.sessionId !== sessionId);
    const running = all.filter((r) => r.state === 'running').length;
    return [
      `Background commands (${running} running):`,
      '  id   state          ran     output  command',
      ...mine.map((r) => row(r, true, now)),
      ...theirs.map((r) => row(r, false, now)),
      '/tasks view <id> shows its last lines · /tasks stop <id> stops one · /tasks stop all',
    ].join('\n');
  }
  if (verb === 'stop' && target === 'all') {
    const n = await commands.stopAll();
    return n === 0 ? 'No background command is running.' : `Stopped ${n} background ${n === 1 ? 'command' : 'commands'}.`;
  }
  if (verb === 'stop') {
    const r = find(target);
    const stopped = await commands.of(r.sessionId)?.stop(r.id);
    return stopped ? `Stopped ${r.id} (${r.command}); the model is told at its next request.` : `${r.id} is not running (${describeState(r)}).`;
  }
  if (verb === 'view') {
    const r = find(target);
    const out = commands.of(r.sessionId)?.output(r.id);
    const last = lastLinesOf(out?.text ?? '', VIEW_LINES);
    return `${r.id} · ${describeState(r)} · $ ${r.command}\n${last || '(no output yet)'}`;
  }
  throw new TasksError('usage: /tasks, /tasks view <id>, /tasks stop <id>, /tasks stop all');
}
