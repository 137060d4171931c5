// Leaving while the database refuses writes (a full disk): nothing may say "saved" then. The
// session keeps the refused messages in memory and retries them with every later message
// (session/sessionLog.ts); at the end the TUI asks — once its screen is gone, whatever ended it —
// whether to retry, to write the whole transcript as JSONL or Markdown to a path the person
// chooses, or to quit anyway; print mode retries once and otherwise says how many messages are
// not saved and exits 1. A signal's exit cannot ask: it says the same facts on stderr.
import { world } from './runtime/world.js';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Message } from './llm/messages.js';
import { sessionMarkdown } from './markdownExport.js';
import type { Saving } from './session/sessionLog.js';
import type { SessionView } from './protocol/views.js';

export interface UnsavedSession {
  view(): SessionView;
  readonly saving: Saving;
}

/** "3 messages of session s-… are not saved in the database (<why>)", or undefined when all are saved. */
export function unsavedFacts(session: UnsavedSession): string | undefined {
  const n = session.saving.unsavedCount;
  if (n === 0) return undefined;
  const why = session.saving.saveError ? ` (${session.saving.saveError.replace(/\.$/, '')})` : '';
  return `${n} message${n === 1 ? '' : 's'} of session ${session.view().id} ${n === 1 ? 'is' : 'are'} not saved in the database${why}`;
}

/** The session's messages as `agent sessions export` writes them (JSONL, or Markdown). */
export function transcriptText(session: UnsavedSession, format: 'jsonl' | 'md'): string {
  const v = session.view();
  const messages: Message[] = session.saving.messages();
  if (format === 'jsonl') {
    const head = { type: 'session', id: v.id, cwd: v.cwd, title: v.title, provider: v.provider, model: v.model };
    return [head, ...messages.map((m) => ({ type: 'message', archivedBy: null, ...m }))]
      .map((l) => JSON.stringify(l))
      .join('\n')
      .concat('\n');
  }
  const now = Date.now();
  const info = { ...v, createdAt: messages[0]?.createdAt ?? now, updatedAt: now, meta: {}, messageCount: messages.length, visibleCount: messages.length };
  return sessionMarkdown(
    { ...info, compactionCount: 0, contextTokens: null },
    messages.map((message) => ({ message, archivedBy: null })),
  );
}

export type UnsavedOutcome = 'saved' | 'written' | 'quit';

/**
 * Asks what to do about unsaved messages until they are saved, written to a file, or left:
 * r retries, j / m write JSONL / Markdown to a path (Enter takes the one offered), q quits.
 */
export async function askAboutUnsaved(
  session: UnsavedSession,
  io: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream } = { input: world().stdin, output: world().stdout },
): Promise<UnsavedOutcome> {
  // the app let go of the terminal's input (Ink unrefs it when it ends): hold it again while asking
  (io.input as { ref?: () => void }).ref?.();
  const rl = createInterface({ input: io.input, output: io.output, terminal: false });
  const say = (text: string): void => void io.output.write(`${text}\n`);
  try {
    for (;;) {
      const facts = unsavedFacts(session);
      if (!facts) return 'saved';
      say(`\n${facts}. They are lost if you quit now.`);
      const answer = (await rl.question('r: retry saving · j: write the transcript as JSONL · m: as Markdown · q: quit anyway > ')).trim().toLowerCase();
      if (answer === 'r') {
        if (session.saving.flush()) {
          say('Saved: every message is in the database now.');
          return 'saved';
        }
        continue;
      }
      if (answer === 'q') return 'quit';
      if (answer !== 'j' && answer !== 'm') continue;
      const format = answer === 'j' ? 'jsonl' : 'md';
      const offered = resolve(`agent-${session.view().id}.${format}`);
      const path = resolve((await rl.question(`Write it to [${offered}]: `)).trim() || offered);
      try {
        writeFileSync(path, transcriptText(session, format), { flag: 'wx', mode: 0o600 });
        say(`Wrote the whole transcript (${session.saving.messages().length} messages) to ${path}.`);
        return 'written';
      } catch (e) {
        say(`Could not write ${path}: ${(e as Error).message}`);
      }
    }
  } finally {
    rl.close();
    (io.input as { unref?: () => void }).unref?.();
  }
}
