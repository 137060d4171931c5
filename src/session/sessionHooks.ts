// The session's side of hooks (src/hooks): where in a session each event fires and what its
// outcome does. SessionStart (once, before the first prompt of this process) and
// UserPromptSubmit add context to the prompt's message or block it; PreToolUse, PostToolUse
// and Stop reach the loop as LoopHooks; PreCompact joins the summary instructions, PostCompact
// gets the receipt; Notification fires when the agent waits for the person.
import type { LoopHooks, TurnResult } from '../agent/host.js';
import type { CompactionRecord, CompactionTrigger } from '../compaction/types.js';
import { emptyUsage, type TextBlock } from '../llm/messages.js';
import { MAX_STOP_CONTINUATIONS, type Hooks } from '../hooks/hooks.js';

export type { Hooks };
import type { Approver } from '../tools/permissions.js';

/** Starts a block of hook output in the prompt's message. */
export const hookContextHeader = (event: string): string => `[Context from a ${event} hook]`;
/** Whether a text block of a prompt is a hook's context (not what the person typed). */
export const isHookContext = (text: string): boolean => /^\[Context from a \w+ hook\]/.test(text);

/** A tool's input as hooks see it: a `path` is also given as Claude Code's `file_path`, so a hook written for Claude Code finds its file. */
function claudeInput(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const rec = input as Record<string, unknown>;
  return typeof rec['path'] === 'string' && rec['file_path'] === undefined ? { ...rec, file_path: rec['path'] } : input;
}

export class SessionHooks {
  private started = false;

  constructor(
    private readonly hooks: Hooks | undefined,
    /** How this session began, for SessionStart's `source`. */
    private readonly source: 'startup' | 'resume',
  ) {}

  /** SessionStart (first prompt only) and UserPromptSubmit: context blocks for the message, or why the prompt is blocked. */
  async beforePrompt(prompt: string, signal: AbortSignal): Promise<{ block?: string; blocks: TextBlock[] }> {
    const blocks: TextBlock[] = [];
    if (!this.hooks) return { blocks };
    await this.hooks.prepare(signal);
    if (!this.started) {
      this.started = true;
      const start = await this.hooks.run('SessionStart', this.source, { source: this.source }, signal);
      for (const c of start.context) blocks.push({ type: 'text', text: `${hookContextHeader('SessionStart')}\n${c}` });
    }
    const submit = await this.hooks.run('UserPromptSubmit', '', { prompt }, signal);
    if (submit.block !== undefined) return { block: submit.block, blocks: [] };
    for (const c of submit.context) blocks.push({ type: 'text', text: `${hookContextHeader('UserPromptSubmit')}\n${c}` });
    return { blocks };
  }

  /** The result of a prompt a UserPromptSubmit hook blocked (no turn ran); the person reads why. */
  blocked(reason: string, warn: (text: string) => void): TurnResult {
    warn(`A UserPromptSubmit hook blocked this prompt; it was not sent: ${reason}`);
    return { reason: 'blocked', steps: 0, usage: emptyUsage(), text: '' };
  }

  /** The loop's `hooks` option, when a tool or Stop hook is configured. */
  loopOption(): { hooks?: LoopHooks } {
    const hooks = this.loopHooks();
    return hooks ? { hooks } : {};
  }

  loopHooks(): LoopHooks | undefined {
    const hooks = this.hooks;
    if (!hooks || !(hooks.has('PreToolUse') || hooks.has('PostToolUse') || hooks.has('Stop'))) return undefined;
    return {
      beforeTool: async (call, signal) => {
        const o = await hooks.run('PreToolUse', call.name, { tool_name: call.name, tool_input: claudeInput(call.input), tool_use_id: call.toolUseId }, signal);
        return o.block !== undefined ? { block: o.block } : o.allow ? { allow: true } : {};
      },
      afterTool: async (call, output, signal) => {
        const o = await hooks.run(
          'PostToolUse',
          call.name,
          {
            tool_name: call.name,
            tool_input: claudeInput(call.input),
            tool_use_id: call.toolUseId,
            tool_response: { content: output.content, is_error: output.isError },
          },
          signal,
        );
        const parts = [...(o.block !== undefined ? [o.block] : []), ...o.context];
        return parts.length > 0 ? parts.join('\n') : undefined;
      },
      onStop: async (text, count, signal) => {
        if (count >= MAX_STOP_CONTINUATIONS) return undefined;
        const o = await hooks.run('Stop', '', { stop_hook_active: count > 0, last_assistant_message: text }, signal);
        return o.block;
      },
    };
  }

  /**
   * What every summary request is told beyond its fixed prompt: compaction.instructions, what
   * PreCompact hooks print, and the person's /compact focus, in that order.
   */
  async summaryInstructions(
    standing: string | undefined,
    trigger: Exclude<CompactionTrigger, 'micro'>,
    focus: string | undefined,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const parts: string[] = [];
    if (standing?.trim()) parts.push(standing.trim());
    if (this.hooks) {
      const o = await this.hooks.run(
        'PreCompact',
        trigger === 'manual' ? 'manual' : 'auto',
        { trigger: trigger === 'manual' ? 'manual' : 'auto', custom_instructions: focus ?? '' },
        signal,
      );
      parts.push(...o.context);
    }
    if (focus?.trim()) parts.push(focus.trim());
    return parts.length > 0 ? parts.join('\n\n') : undefined;
  }

  /** PostCompact: the receipt of an LLM compaction (applied or not). */
  async afterCompaction(record: CompactionRecord): Promise<void> {
    if (!this.hooks || record.trigger === 'micro') return;
    const { id, trigger, status, reason, tokensBefore, tokensAfter, archivedCount, preservedCount, durationMs, summary } = record;
    await this.hooks.run('PostCompact', trigger === 'manual' ? 'manual' : 'auto', {
      trigger,
      compaction: { id, trigger, status, reason, tokensBefore, tokensAfter, archivedCount, preservedCount, durationMs, summary },
    });
  }

  /** The approver, telling Notification hooks each time it asks the person. */
  notifying(ask: Approver | undefined): Approver | undefined {
    if (!ask) return undefined;
    return (req, signal) => {
      this.notify('permission_prompt', `agent needs your permission to use ${req.toolName}: ${req.summary}`);
      return ask(req, signal);
    };
  }

  /** Notification: the agent waits for the person (an approval, or idle at the prompt). Not awaited by anyone. */
  notify(type: 'permission_prompt' | 'idle_prompt', message: string): void {
    if (!this.hooks?.has('Notification')) return;
    void this.hooks.run('Notification', type, { message, notification_type: type });
  }
}
