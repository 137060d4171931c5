// Background commands as a capability: each session gets its commands (shells.ts) for the Bash
// tool to hand commands to and Recall to read, the KillShell tool, the end notices at the model's
// next request (after a tool call's results, or with the person's next prompt), its commands
// saved with the session (after --resume one that ran is shown ended, its exit status unknown),
// and its running commands stopped when it closes (a sub-agent's child ends; the program ends).
import { join } from 'node:path';
import type { Capability, CapabilityFactory } from '../capability/capability.js';
import { registerTools } from '../tools/registry.js';
import { TOOL } from '../tools/toolNames.js';
import { BackgroundCommands } from './commands.js';
import { createKillShellTool } from './killShell.js';
import { backgroundSection } from './ledgerSection.js';
import type { ShellRecord } from './shells.js';
import { taskRows, tasksCommand } from './tasksCommand.js';

/** Every session's background commands (their output beside the database), and /tasks over them. */
export const background: CapabilityFactory = (ctx) => {
  const commands = new BackgroundCommands({ root: join(ctx.dataDir, 'background'), maxRunning: ctx.config.bash.maxBackground, redact: ctx.redact });
  return {
    ...backgroundCapability(commands),
    parts: { background: commands },
    // the /tasks panel's rows, read again whenever a command starts or ends
    views: { tasks: (session) => taskRows(commands, session.id) },
    keys: [
      {
        key: 'ctrl+b',
        description: 'move the running Bash command to the background (the turn goes on; /tasks lists and stops them)',
        press: () => (commands.moveForeground() ? undefined : 'No Bash command is running to move to the background (Ctrl+B).'),
      },
    ],
    commands: [
      {
        name: 'tasks',
        args: '[view <id>|stop <id>|stop all]',
        whileBusy: true,
        description: 'background commands: state, time, output size; view the last lines of one, stop one or all',
        run: async (session, args) => {
          const shown = await tasksCommand(commands, session.id, args);
          return args.trim() === '' ? { kind: 'tasks', rows: taskRows(commands, session.id), text: shown } : { kind: 'text', text: shown };
        },
      },
    ],
  };
};

export function backgroundCapability(commands: BackgroundCommands): Capability {
  return {
    name: 'background',
    toolNames: [TOOL.KillShell],
    open: (host) => {
      const shells = commands.open(host.sessionId);
      return {
        tools: registerTools([createKillShellTool(shells)]),
        background: shells,
        ledger: [backgroundSection],
        hooks: {
          beforePrompt: async () => ({ blocks: shells.notices().map((text) => ({ type: 'text' as const, text })) }),
          notices: () => shells.notices(),
        },
        state: {
          key: 'background',
          restore: (saved) => shells.restore(savedRecords(saved)),
          save: () => (shells.list().length > 0 ? shells.list() : undefined),
        },
        close: () => commands.close(host.sessionId, host.parent),
      };
    },
  };
}

/** What an earlier run saved, read forgivingly: entries without an id, command or file are left out. */
function savedRecords(saved: unknown): ShellRecord[] {
  if (!Array.isArray(saved)) return [];
  return saved.flatMap((r: unknown) => {
    if (typeof r !== 'object' || r === null) return [];
    const o = r as Record<string, unknown>;
    if (typeof o['id'] !== 'string' || !/^b\d+$/.test(o['id']) || typeof o['command'] !== 'string' || typeof o['file'] !== 'string') return [];
    const num = (k: string): number => (typeof o[k] === 'number' ? (o[k] as number) : 0);
    const state = ['running', 'exited', 'stopped', 'lost', 'detached'].includes(o['state'] as string) ? (o['state'] as ShellRecord['state']) : 'lost';
    return [
      {
        id: o['id'],
        command: o['command'],
        file: o['file'],
        pid: num('pid'),
        startedAt: num('startedAt'),
        ...(typeof o['endedAt'] === 'number' ? { endedAt: o['endedAt'] } : {}),
        state,
        code: typeof o['code'] === 'number' ? o['code'] : null,
        signal: typeof o['signal'] === 'string' ? o['signal'] : null,
        chars: num('chars'),
        bytes: num('bytes'),
        kept: num('kept'),
        lastRead: num('lastRead'),
      },
    ];
  });
}
