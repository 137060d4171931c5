import { describe, expect, it } from 'vitest';
import type { CommandSession } from '../../src/capability/context.js';
import { capabilityCommands, CommandError, commandInfos, findCommand, isCommandLine, runSlash } from '../../src/commands/registry.js';
import type { Session } from '../../src/session/session.js';
import { commandWord, isCommandText } from '../../src/ui/completion.js';
import { COMMANDS } from '../ui/fakes.js';

describe('which lines are slash commands', () => {
  it('a known command, or one close to it, is a command', () => {
    expect(isCommandLine('/compact focus: the schema')).toBe(true);
    expect(isCommandLine('/cost')).toBe(true);
    expect(isCommandLine('/compcat')).toBe(true); // a typo still gets "did you mean"
  });

  it('a prompt that starts with a path is a prompt', () => {
    expect(isCommandLine('/etc/hosts is it fine?')).toBe(false);
    expect(isCommandLine('/usr/local/bin/node crashes, why?')).toBe(false);
    expect(isCommandLine('/tmp is full, what can I delete')).toBe(false);
    expect(isCommandLine('/')).toBe(false);
  });

  it('the UI decides the same way from the command list', () => {
    expect(isCommandText('/etc/hosts is it fine?', COMMANDS)).toBe(false);
    expect(isCommandText('/tmp is full', COMMANDS)).toBe(false);
    expect(isCommandText('/cost', COMMANDS)).toBe(true);
    expect(isCommandText('/co', COMMANDS)).toBe(true);
    // no completion hint ("Unknown command") while typing a path
    expect(commandWord('/etc/hosts', 10)).toBeNull();
    expect(commandWord('/comp', 5)).toBe('/comp');
  });

  it("with custom commands, a path prompt is still a prompt, and a custom command's name is a command", () => {
    const custom = [{ name: 'review', description: 'Review', body: 'Review $1', file: '/p/.claude/commands/review.md', source: 'project' }];
    // mutation: any custom command not named so made every "/word …" line a command
    expect(isCommandLine('/tmp is full, what can I delete', custom)).toBe(false);
    expect(isCommandLine('/review src/a.ts', custom)).toBe(true);
  });

  it('/quit is /exit', () => {
    expect(findCommand('quit')).toBeDefined();
    expect(isCommandLine('/quit')).toBe(true);
  });
});

describe("a capability's commands", () => {
  const seen: Array<{ id: string; args: string }> = [];
  const more = capabilityCommands([
    {},
    {
      commands: [
        {
          name: 'echo',
          args: '<text>',
          description: 'says it back',
          whileBusy: true,
          run: async (session: CommandSession, args: string) => {
            if (args === 'bad') throw new Error('echo: nothing to say');
            seen.push({ id: session.id, args });
            return { kind: 'text', text: args };
          },
        },
      ],
    },
  ]);

  it('are slash commands beside the built-in ones: found, offered after them, run on the session they are typed in', async () => {
    // runSlash not passing ctx.more to findCommand (checked) fails here, as would findCommand or commandInfos ignoring `more`
    expect(findCommand('echo')).toBeUndefined();
    expect(findCommand('echo', more)?.whileBusy).toBe(true);
    expect(isCommandLine('/echo hello there', [], more)).toBe(true);
    const names = commandInfos([], {}, more).map((c) => c.name);
    expect(names.indexOf('echo')).toBeGreaterThan(names.indexOf('compact'));
    const session = { id: 's_1' } as unknown as Session;
    await expect(runSlash({ session, more }, '/echo hello')).resolves.toEqual({ kind: 'text', text: 'hello' });
    expect(seen).toEqual([{ id: 's_1', args: 'hello' }]);
    // a capability's refusal is the command's message
    await expect(runSlash({ session, more }, '/echo bad')).rejects.toBeInstanceOf(CommandError);
    await expect(runSlash({ session }, '/echo hello')).rejects.toThrow(/unknown command \/echo/);
  });
});

describe('/compact', () => {
  /** A session that records which compaction /compact asked of it; `running` says whether one can be cancelled. */
  const recording = (running: boolean) => {
    const asked: string[] = [];
    const session = {
      cancelCompaction: () => (asked.push('cancel'), running),
      compactInBackground: async (focus?: string) => (asked.push(`background ${focus ?? ''}`), true),
      compact: async (focus?: string) => void asked.push(`now ${focus ?? ''}`),
    } as unknown as Session;
    return { session, asked };
  };
  const app = { clear: async () => {}, resume: async () => {}, listSessions: () => [], exit: async () => {} };

  it('cancel stops the compaction that runs, and says when none does', async () => {
    const idle = recording(false);
    // mutation: `if (session.cancelCompaction())` without its `!` refuses the cancel that worked and passes the one that did nothing
    await expect(runSlash({ session: idle.session }, '/compact cancel')).rejects.toThrow(new CommandError('no compaction is running'));
    const busy = recording(true);
    expect(await runSlash({ session: busy.session }, '/compact  CANCEL')).toBeUndefined();
    expect([idle.asked, busy.asked]).toEqual([['cancel'], ['cancel']]);
  });

  it('in the app the summary is written in the background; elsewhere (print mode) it is written before the command ends', async () => {
    const inApp = recording(false);
    expect(await runSlash({ session: inApp.session, app }, '/compact focus: the schema')).toBeUndefined();
    const printed = recording(false);
    expect(await runSlash({ session: printed.session }, '/compact focus: the schema')).toBeUndefined();
    // mutation: `app && …` made `app || …` sends print mode's /compact to the background too
    expect([inApp.asked, printed.asked]).toEqual([['background the schema'], ['now the schema']]);
  });
});
