// A custom command's turn (commands/customRun.ts) sends its body, and the person typed
// `/review src/a.ts`: the prompt opens with Claude Code's tags for what was typed, so the
// transcript, /rewind and the ledger show the command as typed (the body is what the model
// works from), and the model knows which command it is running.

const TAG = /^<command-name>(\/[^<\n]+)<\/command-name>\n<command-args>([\s\S]*?)<\/command-args>\n\n/;

/** The prompt of a custom command: the tags of what was typed, then the body. */
export const withTypedCommand = (name: string, args: string, body: string): string =>
  `<command-name>/${name}</command-name>\n<command-args>${args.trim()}</command-args>\n\n${body}`;

/** The prompt without the tags (what a UserPromptSubmit hook is given: the body, as before the tags). */
export const withoutTypedCommand = (text: string): string => text.replace(TAG, '');

/** What the person typed, when `text` is a custom command's prompt; undefined otherwise. */
export function typedCommand(text: string): string | undefined {
  const m = TAG.exec(text);
  return m ? `${m[1]}${m[2] ? ` ${m[2]}` : ''}` : undefined;
}
