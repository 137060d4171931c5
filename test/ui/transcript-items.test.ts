import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/llm/messages.js';
import { SHELL_ROW_NAME } from '../../src/protocol/views.js';
import { messagesToItems, STOPPED_NOTICE } from '../../src/ui/transcript.js';

// A stored conversation read back as the transcript's items (a resumed session's first frame): what
// the person typed and how each call ended, from the messages alone. The rendering is the
// components' tests' (tool-row, item-look).

let seq = 0;
const message = (role: 'user' | 'assistant', blocks: Message['blocks'], over: Partial<Message> = {}): Message => ({
  id: `m${++seq}`,
  role,
  kind: 'normal',
  createdAt: seq,
  blocks,
  ...over,
});
const call = (id: string) => ({ type: 'tool_use' as const, id, name: 'Bash', input: { command: `run ${id}` } });

describe('a stored conversation as transcript items', () => {
  it("the person's words: a custom command as typed, hooks' context, an image named; not plan mode's note; a !command as its tool row", () => {
    const items = messagesToItems([
      message('user', [
        { type: 'text', text: 'Review a.ts closely (the command body)', origin: { kind: 'typed_command', typed: '/review a.ts' } },
        { type: 'text', text: 'from the hook', origin: { kind: 'hook_context' } },
        { type: 'text', text: 'plan mode: do not edit', origin: { kind: 'plan_note' } },
        { type: 'image', mediaType: 'image/png', data: 'AAAA' },
      ]),
      message('user', [{ type: 'text', text: 'ran ls' }], { origin: { kind: 'shell', command: 'ls', output: 'a.ts', status: 'error' } }),
      message('user', [{ type: 'text', text: 'a note' }], { kind: 'meta' }),
    ]);
    expect(items).toEqual([
      { kind: 'user', id: expect.any(String), text: '/review a.ts\nfrom the hook\n[image image/png]' },
      { kind: 'tool', id: expect.any(String), toolUseId: expect.stringMatching(/^m/), name: SHELL_ROW_NAME, summary: 'ls', status: 'error', output: 'a.ts' },
      { kind: 'meta', id: expect.any(String), text: 'a note' },
    ]);
  });

  it('each call as it ended: done, an error, denied, interrupted, none stored (interrupted); a call the person stopped at ends with the notice', () => {
    const calls = message('assistant', [call('ok'), call('bad'), call('no'), call('cut'), call('lost')]);
    const results = message('user', [
      { type: 'tool_result', toolUseId: 'ok', content: 'fine', isError: false },
      { type: 'tool_result', toolUseId: 'bad', content: 'exit 1', isError: true },
      { type: 'tool_result', toolUseId: 'no', content: 'denied', isError: true, outcome: 'denied' },
      { type: 'tool_result', toolUseId: 'cut', content: 'cut short', isError: true, outcome: 'interrupted' },
    ]);
    const items = messagesToItems([message('user', [{ type: 'text', text: 'go' }]), calls, results]);
    const rows = items.flatMap((i) => (i.kind === 'tool' ? [[i.summary, i.status, i.output]] : []));
    expect(rows).toEqual([
      ['run ok', 'done', 'fine'],
      ['run bad', 'error', 'exit 1'],
      ['run no', 'denied', 'denied'],
      ['run cut', 'interrupted', 'cut short'],
      ['run lost', 'interrupted', ''],
    ]);
    expect(items.some((i) => i.kind === 'notice')).toBe(false);
    // the person denied one and ended the turn there
    const stopped = messagesToItems([
      message('assistant', [call('s1'), call('s2')]),
      message('user', [
        { type: 'tool_result', toolUseId: 's1', content: 'fine', isError: false },
        { type: 'tool_result', toolUseId: 's2', content: 'stopped', isError: true, outcome: 'stopped' },
      ]),
    ]);
    expect(stopped.flatMap((i) => (i.kind === 'tool' ? [i.status] : []))).toEqual(['done', 'denied']);
    expect(stopped.at(-1)).toMatchObject({ kind: 'notice', level: 'info', text: STOPPED_NOTICE });
  });
});
