// The person's own editor ($VISUAL, $EDITOR, else vi) on a text the app shows: a plan presented
// for approval (ExitPlanMode's "open it in $EDITOR first"). The text goes to a temporary Markdown
// file, the editor gets the terminal (raw mode off, the app's event loop held while it runs, so
// Ink reads no key meant for the editor), and what the person saved comes back.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { holdSigint } from '../processes/signals.js';
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON } from './prompt-paste.js';

export interface EditorTerminal {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  /** The editor's environment (the provider keys left out). */
  env: NodeJS.ProcessEnv;
}

/** The editor command as the shell runs it: $VISUAL, else $EDITOR, else vi (git's order). */
export const editorCommand = (env: NodeJS.ProcessEnv): string => env['VISUAL']?.trim() || env['EDITOR']?.trim() || 'vi';

/**
 * Opens `text` in the person's editor as `name` and returns what they saved, or why it could not
 * be edited (the editor could not be started or failed: the text is then as it was).
 */
export function editInEditor(text: string, name: string, term: EditorTerminal): { text: string } | { note: string } {
  const editor = editorCommand(term.env);
  const dir = mkdtempSync(join(tmpdir(), 'agent-edit-'));
  const file = join(dir, name);
  const raw = term.stdin.isTTY === true && term.stdin.isRaw;
  // a Ctrl+C the editor does not take (one in cooked mode) reaches this process too: it is the editor's, as with git
  holdSigint(true);
  try {
    writeFileSync(file, text.endsWith('\n') ? text : `${text}\n`);
    if (raw) term.stdin.setRawMode(false);
    // the cursor shown and pastes unmarked, as the editor expects a terminal
    if (term.stdout.isTTY) term.stdout.write(`${BRACKETED_PASTE_OFF}\u001b[?25h\n`);
    // through the shell, as git runs it: "code --wait" and quoted paths work
    const run = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'editor', file], { stdio: 'inherit', env: term.env });
    if (run.error) return { note: `Could not start the editor "${editor}": ${run.error.message}. Set $VISUAL or $EDITOR. The plan is as it was.` };
    if (run.status === 127 || run.status === 126)
      return {
        note: `Could not start the editor "${editor}" (${run.status === 127 ? 'command not found' : 'not executable'}). Set $VISUAL or $EDITOR to one that works. The plan is as it was.`,
      };
    if (run.status !== 0)
      return { note: `The editor "${editor}" ${run.signal ? `was ended by ${run.signal}` : `exited with status ${run.status}`}: the plan is as it was.` };
    return { text: readFileSync(file, 'utf8') };
  } catch (e) {
    return { note: `Could not edit the plan in a temporary file: ${e instanceof Error ? e.message : String(e)}. The plan is as it was.` };
  } finally {
    try {
      if (raw && term.stdin.isTTY) term.stdin.setRawMode(true);
      if (term.stdout.isTTY) term.stdout.write(BRACKETED_PASTE_ON);
    } catch {
      // the terminal went away meanwhile
    }
    rmSync(dir, { recursive: true, force: true });
    holdSigint(false);
  }
}
