import { describe, expect, it } from 'vitest';
import { isPersonTurn, OutsideChangesError, outsideChanges } from '../../src/session/rewind.js';
import type { Message } from '../../src/llm/messages.js';

// rewind.ts's own words and choices without a session: the refusal for files changed outside
// (the picker turns it into a question, test/commands/rewind.test.ts), and which messages are the
// person's turns a rewind can go back to.

describe('files changed outside since the last turn', () => {
  const paths = (n: number) => Array.from({ length: n }, (_, i) => `/p/f${i + 1}.ts`);

  it('one file is named as such, with how to overwrite it', () => {
    const e = outsideChanges(['/p/a.ts'], '/p', '/rewind 2 code');
    expect(e).toBeInstanceOf(OutsideChangesError);
    expect(e.name).toBe('OutsideChangesError');
    expect(e.files).toEqual(['a.ts']);
    expect(e.message).toBe(
      "This file was changed since the agent's last turn (not by the agent):\n  a.ts\nNothing was changed. To overwrite it anyway: /rewind 2 code --force (/rewind undo takes that back).",
    );
  });

  it('ten are all listed; from eleven the first ten and a count of the rest, every one kept in `files`', () => {
    const ten = outsideChanges(paths(10), '/p', '/rewind undo').message.split('\n');
    expect(ten[0]).toBe("These 10 files were changed since the agent's last turn (not by the agent):");
    expect(ten.slice(1, -1)).toEqual(paths(10).map((_, i) => `  f${i + 1}.ts`));
    expect(ten.at(-1)).toBe('Nothing was changed. To overwrite them anyway: /rewind undo --force (/rewind undo takes that back).');
    const twelve = outsideChanges(paths(12), '/p', '/rewind undo');
    expect(twelve.message.split('\n').slice(1, -1)).toEqual([...paths(10).map((_, i) => `  f${i + 1}.ts`), '  … and 2 more']);
    expect(twelve.files).toHaveLength(12);
  });
});

describe("the person's turns", () => {
  const msg = (over: Partial<Message>): Message => ({
    id: 'u',
    role: 'user',
    kind: 'normal',
    createdAt: 0,
    blocks: [{ type: 'text', text: 'fix it' }],
    ...over,
  });

  it('a prompt is one; a pinned message, a note (meta), tool results, a blank message and a reply are not', () => {
    expect(isPersonTurn(msg({}))).toBe(true);
    expect(isPersonTurn(msg({ pinned: true }))).toBe(false);
    expect(isPersonTurn(msg({ kind: 'meta' }))).toBe(false);
    expect(isPersonTurn(msg({ blocks: [{ type: 'tool_result', toolUseId: 't1', content: 'ok', isError: false }] }))).toBe(false);
    expect(isPersonTurn(msg({ blocks: [{ type: 'text', text: '  \n' }] }))).toBe(false);
    expect(isPersonTurn(msg({ role: 'assistant' }))).toBe(false);
  });
});
