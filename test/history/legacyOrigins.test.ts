import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withLegacyOrigins } from '../../src/history/legacyOrigins.js';
import type { Block, Message } from '../../src/llm/messages.js';
import { asStoredBefore } from '../store/helpers.js';
import { dateNoteFor } from '../../src/session/dateNote.js';
import { attachMentions, promptMessage } from '../../src/session/mentions.js';
import { repairHistory, unansweredReply } from '../../src/session/repair.js';
import { shellNote } from '../../src/session/shellNote.js';
import { withTypedCommand } from '../../src/session/typedCommand.js';
import { planModeNote } from '../../src/plan/plans.js';
import { hookContextHeader } from '../../src/hooks/capability.js';
import { INTERRUPTED_RESULT } from '../../src/agent/runTools.js';
import { createTools } from '../../src/tools/registry.js';
import type { SpillSink } from '../../src/tools/types.js';
import { tempDir } from '../tempDirs.js';

// A message stored before schema v13 has no origin: the store derives it when the row is loaded,
// from the texts the producers wrote. Each case here makes a message with today's producer,
// strips what the old code did not store (origins, outcomes), and expects the derivation to give
// back what the producer set: a producer whose text drifted from what the derivation reads fails.

const roundTrip = (m: Message): Message => withLegacyOrigins(asStoredBefore(m));

const prompt = (blocks: Block[]): Message => ({ id: 'u1', role: 'user', kind: 'normal', createdAt: 1, blocks });

describe('the origin of a message stored before v13', () => {
  it('is derived for the notes the session makes: date, `!command` (done, failed, interrupted), unanswered prompt', () => {
    const cases = [
      dateNoteFor([], new Date('2026-11-26T10:00:00Z'))!,
      shellNote({ command: 'git status', output: 'On branch main', isError: false }, 'done'),
      shellNote({ command: 'make', output: 'Command failed with exit code 2\nno rule', isError: true }, 'error'),
      shellNote({ command: 'sleep 9', output: 'Command interrupted; partial output:\nz', isError: true }, 'interrupted'),
      unansweredReply(),
    ];
    for (const m of cases) {
      expect(m.origin).toBeDefined();
      expect(roundTrip(m)).toEqual(m);
    }
  });

  it("is derived for the blocks a prompt carries: @attachments (a file, a listing, a spilled file), the plan-mode note, hooks' context, a custom command as typed", async () => {
    const dir = tempDir('agent-legacy-origins-');
    writeFileSync(join(dir, 'a.txt'), 'alpha\n');
    writeFileSync(join(dir, 'big.txt'), `${Array.from({ length: 3_000 }, (_, i) => `row ${i}`).join('\n')}\n`);
    mkdirSync(join(dir, 'sub'));
    const tools = createTools({ bash: { timeoutMs: 10_000, maxTimeoutMs: 10_000, maxOutputChars: 10_000 } });
    const sink: SpillSink = { thresholdFor: () => 2_000, archive: () => 'o7' };
    const signal = new AbortController().signal;
    const attached = await attachMentions('@a.txt @sub/ @big.txt', tools, dir, signal, undefined, { sink, budgetTokens: 1_000, messageId: 'u1' });
    expect(attached.blocks.map((b) => (b.type === 'text' ? b.origin : undefined))).toEqual([
      { kind: 'attachment', label: 'a.txt: read with FileRead' },
      { kind: 'attachment', label: 'sub/: directory listing' },
      { kind: 'attachment', label: 'big.txt: too large to attach whole, archived as o7', archived: 'o7' },
    ]);
    const typed = await promptMessage(withTypedCommand('review', 'src/a.ts', 'Review the file.'), {
      tools,
      cwd: dir,
      signal,
      warn: () => undefined,
    });
    if ('refused' in typed) throw new Error(typed.refused);
    expect(typed.blocks[0]).toMatchObject({ origin: { kind: 'typed_command', typed: '/review src/a.ts' } });
    const hook: Block = { type: 'text', text: `${hookContextHeader('UserPromptSubmit')}\nbranch: main`, origin: { kind: 'hook_context' } };
    const m = prompt([...typed.blocks, ...attached.blocks, planModeNote, hook, { type: 'text', text: 'and what the person typed' }]);
    expect(roundTrip(m)).toEqual(m);
  });

  it('is derived for the outcomes of calls: interrupted (Esc, a crash the repair closed), denied, denied and stopped', () => {
    const call: Message = {
      id: 'a1',
      role: 'assistant',
      kind: 'normal',
      createdAt: 1,
      blocks: ['t1', 't2', 't3', 't4', 't5'].map((id) => ({ type: 'tool_use', id, name: 'Bash', input: { command: 'ls' } })),
    };
    const repaired = repairHistory([prompt([{ type: 'text', text: 'go' }]), call])!.added[0]!;
    expect(roundTrip(repaired)).toEqual(repaired);
    const result = (toolUseId: string, content: string, outcome?: 'interrupted' | 'denied' | 'stopped'): Block => ({
      type: 'tool_result',
      toolUseId,
      content,
      isError: true,
      ...(outcome ? { outcome } : {}),
    });
    const results = prompt([
      result('t1', INTERRUPTED_RESULT, 'interrupted'),
      result('t2', `partial\n[${INTERRUPTED_RESULT}]`, 'interrupted'),
      result('t3', 'The user denied this Bash call: use pnpm', 'denied'),
      result('t4', 'The user denied this Bash call, and stopped the turn: wait for their next message.', 'stopped'),
      result('t5', 'Command failed with exit code 1'),
    ]);
    expect(roundTrip(results)).toEqual(results);
  });

  it("is derived for the refusals the gate and the loop wrote: deny mode, nobody to approve, a call not run after a stop (the loop's own text)", () => {
    const refused = (toolUseId: string, content: string): Block => ({ type: 'tool_result', toolUseId, content, isError: true, outcome: 'denied' });
    const results = prompt([
      refused('t1', 'Bash is not allowed here (permissions mode "deny"); the call was not run. Do not retry it; find another way or ask the user.'),
      refused('t2', "Edit needs the user's approval, and nobody can approve in non-interactive mode, so it was not run: a.ts. The user can allow edits."),
      refused('t3', 'Not run: the user denied an earlier call in this step and stopped the turn.'),
      // with the reason the gate gave (the sandbox's builds before v13): the command would run unsandboxed
      refused(
        't5',
        "Bash needs the user's approval (it would run outside the sandbox (excluded command)), and nobody can approve in non-interactive mode, so it was not run: npm i.",
      ),
    ]);
    expect(roundTrip(results)).toEqual(results);
    // the same texts in a result that did not fail are the tool's output, not a refusal
    const ok = prompt([
      { type: 'tool_result', toolUseId: 't4', content: 'Not run: the user denied an earlier call in this step and stopped the turn.', isError: false },
    ]);
    expect(withLegacyOrigins(ok)).toBe(ok);
  });

  it('leaves what the person typed and the model wrote as it is (the same object)', () => {
    const typed = prompt([{ type: 'text', text: 'Context from the agent is what I want: [Attached by the user with @ is a string' }]);
    const reply: Message = { id: 'a1', role: 'assistant', kind: 'normal', createdAt: 2, blocks: [{ type: 'text', text: 'Done.' }] };
    expect(withLegacyOrigins(typed)).toBe(typed);
    expect(withLegacyOrigins(reply)).toBe(reply);
    // a reply cut short keeps its partial text: only the fixed "no reply" text is an unanswered prompt
    const partial: Message = { ...reply, interrupted: true, blocks: [{ type: 'text', text: 'Half an ans' }] };
    expect(withLegacyOrigins(partial)).toBe(partial);
    const meta: Message = { ...typed, kind: 'meta', blocks: [{ type: 'text', text: "A note: today's date is Monday" }] };
    expect(withLegacyOrigins(meta)).toBe(meta);
  });
});

// Mutations checked: a changed prefix in the derivation (DATE_NOTE, SHELL_NOTE, ATTACHMENT,
// PLAN_NOTE, HOOK_CONTEXT, TYPED_COMMAND, UNANSWERED) fails the first two tests; the status of a
// shell note taken from its header alone ('error' for an interrupted run) fails the first; outcomeOf
// without the interrupted check fails the third.
