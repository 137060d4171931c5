// The working-state ledger's slice for background commands: those still running as far as the
// log tells (started or moved to the background by a Bash call, no end notice since), so that
// after a compaction the model still knows its dev server runs and how to read or stop it.
// A pure function of the messages, as every ledger section (ledger/types.ts): the words it reads
// are the Bash tool's answers and the end notices (notice.ts), both written by this program.
import type { LedgerItem, LedgerSection } from '../ledger/types.js';
import type { Message } from '../llm/messages.js';

/** The id a Bash answer hands a command to the background under ("… in the background as b3"). */
const STARTED = /\bin the background as (b\d+)\b|\bmoved to the background as (b\d+)\b/;
/** The first line of an end notice. */
const ENDED = /^\[Background command (b\d+) ended/gm;

export function runningCommands(messages: readonly Message[]): Array<{ id: string; command: string }> {
  const commands = new Map<string, string>();
  const running = new Map<string, string>();
  for (const m of messages) {
    for (const b of m.blocks) {
      if (b.type === 'tool_use' && typeof b.input === 'object' && b.input !== null) {
        const c = (b.input as Record<string, unknown>)['command'];
        if (typeof c === 'string') commands.set(b.id, c);
      } else if (b.type === 'tool_result') {
        const s = STARTED.exec(b.content.slice(0, 400));
        const id = s?.[1] ?? s?.[2];
        if (id !== undefined) running.set(id, commands.get(b.toolUseId) ?? '');
      }
      const text = b.type === 'text' ? b.text : b.type === 'tool_result' ? b.content : '';
      for (const e of text.matchAll(ENDED)) running.delete(e[1]!);
    }
  }
  return [...running].map(([id, command]) => ({ id, command }));
}

export const backgroundSection: LedgerSection = {
  id: 'background',
  title: 'Background commands still running',
  order: 45,
  share: 0.1,
  maxShown: 20,
  note: 'Started earlier in this session; you are told when each ends. Read one with Recall id (since_last_read=true for what is new), stop it with KillShell.',
  derive: ({ messages }): LedgerItem[] =>
    runningCommands(messages).map(({ id, command }) => ({ text: `${id}: \`${command}\``, brief: `${id}: \`${command.slice(0, 80)}\``, recallId: id })),
};
