import { describe, expect, it } from 'vitest';
import { toAnthropicMessages } from '../../src/llm/anthropic.js';
import type { Message } from '../../src/llm/messages.js';
import { toOpenAIMessages } from '../../src/llm/openai.js';
import { toResponsesInput } from '../../src/llm/responses.js';
import { replayableHistory } from '../../src/llm/thinkingReplay.js';
import { asStoredBefore } from '../store/helpers.js';

// A message's origin, a text block's and a result's outcome are the program's, never the
// provider's: each adapter sends the same bytes with them as without them (as before they
// existed), and the prefix a thinking reply is bound to hashes the same, so a session stored
// before them replays its thinking after.

const history: Message[] = [
  {
    id: 'd',
    role: 'user',
    kind: 'meta',
    createdAt: 1,
    blocks: [{ type: 'text', text: "today's date is 2026-11-26." }],
    origin: { kind: 'date_note' },
  },
  {
    id: 'u1',
    role: 'user',
    kind: 'normal',
    createdAt: 2,
    blocks: [
      {
        type: 'text',
        text: '<command-name>/review</command-name>\n<command-args></command-args>\n\nReview.',
        origin: { kind: 'typed_command', typed: '/review' },
      },
      { type: 'text', text: '[Attached by the user with @a.ts: read with FileRead]\nx', origin: { kind: 'attachment', label: 'a.ts: read with FileRead' } },
      { type: 'text', text: '<system-reminder>\nPlan mode is on: …', origin: { kind: 'plan_note' } },
      { type: 'text', text: '[Context from a UserPromptSubmit hook]\nmain', origin: { kind: 'hook_context' } },
    ],
  },
  {
    id: 'a1',
    role: 'assistant',
    kind: 'normal',
    createdAt: 3,
    blocks: [
      { type: 'thinking', thinking: 'hm', signature: 'sig' },
      { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } },
    ],
  },
  {
    id: 'r1',
    role: 'user',
    kind: 'normal',
    createdAt: 4,
    blocks: [{ type: 'tool_result', toolUseId: 't1', content: 'interrupted', isError: true, outcome: 'interrupted' }],
  },
  {
    id: 'n1',
    role: 'user',
    kind: 'normal',
    createdAt: 5,
    blocks: [{ type: 'text', text: '[The user ran a shell command]\n$ ls' }],
    origin: { kind: 'shell', command: 'ls', output: 'a', status: 'done' },
  },
];
const before = history.map(asStoredBefore);

describe('origins on the wire', () => {
  it('are never sent: every adapter converts the history as it did without them', () => {
    for (const convert of [toAnthropicMessages, (h: Message[]) => toOpenAIMessages('sys', h), (h: Message[]) => toResponsesInput(h, 'gpt-5')]) {
      const sent = JSON.stringify(convert(history));
      expect(sent).toBe(JSON.stringify(convert(before)));
      expect(sent).not.toMatch(/origin|outcome|typed_command|plan_note/);
    }
  });

  it('leave the hash of the prefix a thinking reply is bound to as it was', () => {
    const hash = (h: Message[]) => replayableHistory('claude-x', 'sys', [], h).prefixHash;
    expect(hash(history)).toBe(hash(before));
  });
});

// Mutations checked: wireOf (thinkingReplay.ts) hashing the blocks with their origins fails the
// second test; an adapter spreading a text block (`{ ...b }`) would fail the first.
