import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBashTool } from '../../src/tools/bash.js';
import { createEditTool } from '../../src/tools/edit.js';
import type { FileAccess } from '../../src/tools/fileAccess.js';
import { createFileReadTool } from '../../src/tools/fileRead.js';
import { FileTracker } from '../../src/tools/fileTracker.js';
import type { CommandTerminal, TerminalRun } from '../../src/tools/types.js';
import { createWriteTool } from '../../src/tools/write.js';
import { call, perSession, sessionCtx, tree } from './helpers.js';

// The tools' ports: FileRead, Edit and Write read and write through a FileAccess a front end may
// lend (an editor's buffers), Bash runs foreground commands in a CommandTerminal it may lend.

/** An editor's buffers over the disk: a buffered file reads as its buffer; writes land in it. */
function buffers(open: Record<string, string>): FileAccess & { writes: Array<[string, string]> } {
  const writes: Array<[string, string]> = [];
  const read = async (abs: string): Promise<Buffer> => (abs in open ? Buffer.from(open[abs]!) : readFileSync(abs));
  return {
    writes,
    buffered: true,
    read,
    async *chunks(abs) {
      yield await read(abs);
    },
    async write(abs, bytes) {
      writes.push([abs, bytes.toString('utf8')]);
      open[abs] = bytes.toString('utf8');
    },
  };
}

describe('the file port', () => {
  it('FileRead shows the buffer, Edit changes it, Write creates through it; the disk is left alone', async () => {
    const root = tree({ 'a.txt': 'on disk\n' });
    const abs = join(root, 'a.txt');
    const port = buffers({ [abs]: 'in the buffer\nsecond\n' });
    const c = sessionCtx(root, { fileAccess: port, files: new FileTracker() });
    // mutation: FileRead reading the disk shows "on disk"
    expect(
      (
        await call(
          perSession((lent) => createFileReadTool({}, lent)),
          { path: 'a.txt' },
          c,
        )
      ).content,
    ).toContain('in the buffer');
    const edited = await call(perSession(createEditTool), { path: 'a.txt', old_string: 'second', new_string: 'changed' }, c);
    expect(edited.isError, edited.content).toBe(false);
    expect(port.writes).toEqual([[abs, 'in the buffer\nchanged\n']]);
    expect(readFileSync(abs, 'utf8')).toBe('on disk\n');
    // the model knows the buffer it wrote: a second edit needs no new read
    const again = await call(perSession(createEditTool), { path: 'a.txt', old_string: 'changed', new_string: 'again' }, c);
    expect(again.isError, again.content).toBe(false);
    const created = await call(perSession(createWriteTool), { path: 'new.txt', content: 'fresh\n' }, c);
    expect(created.isError, created.content).toBe(false);
    expect(port.writes.at(-1)).toEqual([join(root, 'new.txt'), 'fresh\n']);
  });

  it('refuses an edit when the buffer changed since the read, though the disk did not', async () => {
    const root = tree({ 'a.txt': 'on disk\n' });
    const abs = join(root, 'a.txt');
    const open = { [abs]: 'one\n' };
    const port = buffers(open);
    const c = sessionCtx(root, { fileAccess: port, files: new FileTracker() });
    await call(
      perSession((lent) => createFileReadTool({}, lent)),
      { path: 'a.txt' },
      c,
    );
    open[abs] = 'two\n';
    // mutation: recording the disk's stat for a buffered read lets this edit through
    const r = await call(perSession(createEditTool), { path: 'a.txt', old_string: 'two', new_string: 'three' }, c);
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/changed on disk since you read it/);
    expect(port.writes).toEqual([]);
  });
});

describe('the terminal port', () => {
  const bash = perSession((lent) => createBashTool({ timeoutMs: 5_000, maxTimeoutMs: 10_000, maxOutputChars: 30_000 }, lent));
  const terminal = (run: TerminalRun, seen: Array<Parameters<CommandTerminal['run']>[0]>): CommandTerminal => ({
    run: async (req) => {
      seen.push(req);
      return run;
    },
  });

  it("runs a foreground command in the lent terminal and words its end as a local run's", async () => {
    const root = tree();
    const seen: Array<Parameters<CommandTerminal['run']>[0]> = [];
    const t = terminal({ output: 'hello\x1b[0m\n', truncated: false, exit: { code: 2, signal: null } }, seen);
    const r = await call(bash, { command: 'echo hello; exit 2' }, sessionCtx(root, { terminal: t }, { toolUseId: 'toolu_1' }));
    // mutation: Bash ignoring ctx.terminal runs the command here (its output would not pass through the fake)
    expect(seen).toMatchObject([{ command: 'echo hello; exit 2', cwd: root, toolUseId: 'toolu_1', timeoutMs: 5_000 }]);
    expect(r).toMatchObject({ isError: true, content: 'hello\n\nExit code 2' });
    const timedOut = await call(
      bash,
      { command: 'sleep 9' },
      sessionCtx(root, { terminal: terminal({ output: '', truncated: true, exit: { code: null, signal: 'SIGTERM' }, stopped: 'timeout' }, seen) }),
    );
    expect(timedOut.content).toMatch(/^Command timed out after 5s; partial output:\n\[the terminal dropped the earliest output\]/);
    const refused = await call(
      bash,
      { command: 'ls' },
      sessionCtx(root, { terminal: terminal({ output: '', truncated: false, exit: { code: null, signal: null }, error: 'no' }, seen) }),
    );
    expect(refused).toEqual({ content: 'Could not run the command: no', isError: true });
  });

  it('keeps background commands local', async () => {
    const root = tree();
    const seen: Array<Parameters<CommandTerminal['run']>[0]> = [];
    const r = await call(
      bash,
      { command: 'echo bg', run_in_background: true },
      sessionCtx(root, { terminal: terminal({ output: '', truncated: false, exit: { code: 0, signal: null } }, seen) }),
    );
    // no background host here: refused as it would be locally, never sent to the terminal
    expect(r.content).toMatch(/^Not started: background commands are not available/);
    expect(seen).toEqual([]);
  });
});
