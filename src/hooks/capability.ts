// Hooks as a capability: where in a session each of the person's hook events fires and what its
// outcome does. SessionStart (once, before the first prompt of this process) and
// UserPromptSubmit add context to the prompt's message or block it; PreToolUse, PostToolUse and
// Stop reach the loop; PreCompact joins the summary instructions, PostCompact gets the receipt;
// Notification fires when the agent waits for the person.
import type { Capability, CapabilityHooks, CapabilityFactory } from '../capability/capability.js';
import type { TextBlock } from '../llm/messages.js';
import type { Approver } from '../tools/permissions.js';
import { hookEnv, Hooks, MAX_STOP_CONTINUATIONS, type HooksAnswer, type HooksApprovalRequest } from './hooks.js';

/** Starts a block of hook output in the prompt's message. */
export const hookContextHeader = (event: string): string => `[Context from a ${event} hook]`;

/** A tool's input as hooks see it: a `path` is also given as Claude Code's `file_path`, so a hook written for Claude Code finds its file. */
function claudeInput(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const rec = input as Record<string, unknown>;
  return typeof rec['path'] === 'string' && rec['file_path'] === undefined ? { ...rec, file_path: rec['path'] } : input;
}

/** The person's hooks (config.hookSources) for each session; a project file's run once the person approved it. */
export const hooks: CapabilityFactory = (ctx) =>
  hooksCapability((sessionId) =>
    ctx.config.hookSources && ctx.config.hookSources.length > 0
      ? new Hooks({
          sources: ctx.config.hookSources,
          sessionId,
          cwd: ctx.config.cwd,
          // hooks never see a key, not even one bash.passEnv lets Bash see
          env: hookEnv(ctx.env, (name) => ctx.isSecret(name)),
          toolNames: ctx.toolNames(),
          trust: ctx.trust(),
          trustProject: ctx.trustProject,
          ...(ctx.approver ? { askApproval: askHooksApproval(ctx.approver) } : {}),
          report: (level, text) => ctx.report(level, text),
        })
      : undefined,
  );

/** The person is asked through the approval prompt: remember for the project, this session only, or not at all. */
function askHooksApproval(approver: Approver): (req: HooksApprovalRequest, signal: AbortSignal) => Promise<HooksAnswer> {
  return async (req, signal) => {
    const answer = await approver(
      {
        toolName: 'Hooks',
        toolUseId: `hooks-approval-${req.file}`,
        input: {},
        summary: req.hooks.join('\n'),
        projectCode: { what: 'hooks', name: req.file, file: req.file, changed: req.changed },
      },
      signal,
    );
    return answer.kind === 'allow_tool' ? 'remember' : answer.kind === 'allow_once' ? 'session' : 'no';
  };
}

/** The person's hooks for each session (`hooksFor` gives undefined when none are configured). */
export function hooksCapability(hooksFor: (sessionId: string) => Hooks | undefined): Capability {
  return {
    name: 'hooks',
    open: (host) => {
      const hooks = hooksFor(host.sessionId);
      // the status row says which hook runs and for how long (not "Thinking…")
      if (hooks) hooks.onRunning = (label, done) => host.turn.activity(label, done);
      return hooks ? { hooks: sessionHooks(hooks, host.resumed ? 'resume' : 'startup') } : {};
    },
  };
}

function sessionHooks(hooks: Hooks, source: 'startup' | 'resume'): CapabilityHooks {
  let started = false;
  return {
    beforePrompt: async (prompt, signal) => {
      const blocks: TextBlock[] = [];
      await hooks.prepare(signal);
      if (!started) {
        started = true;
        const start = await hooks.run('SessionStart', source, { source }, signal);
        for (const c of start.context) blocks.push({ type: 'text', text: `${hookContextHeader('SessionStart')}\n${c}`, origin: { kind: 'hook_context' } });
      }
      const submit = await hooks.run('UserPromptSubmit', '', { prompt }, signal);
      if (submit.block !== undefined) return { block: `A UserPromptSubmit hook blocked this prompt; it was not sent: ${submit.block}`, blocks: [] };
      for (const c of submit.context) blocks.push({ type: 'text', text: `${hookContextHeader('UserPromptSubmit')}\n${c}`, origin: { kind: 'hook_context' } });
      return { blocks };
    },
    // the loop runs tool and Stop hooks only where one of them is configured
    ...(hooks.has('PreToolUse') || hooks.has('PostToolUse') || hooks.has('Stop') ? loopHooks(hooks) : {}),
    // compaction.instructions come first, the /compact focus after (the session joins them)
    beforeCompaction: async (trigger, focus, signal) => {
      const mode = trigger === 'manual' ? 'manual' : 'auto';
      return (await hooks.run('PreCompact', mode, { trigger: mode, custom_instructions: focus ?? '' }, signal)).context;
    },
    afterCompaction: async (record) => {
      if (record.trigger === 'micro') return;
      const { id, trigger, status, reason, tokensBefore, tokensAfter, archivedCount, preservedCount, durationMs, summary } = record;
      await hooks.run('PostCompact', trigger === 'manual' ? 'manual' : 'auto', {
        trigger,
        compaction: { id, trigger, status, reason, tokensBefore, tokensAfter, archivedCount, preservedCount, durationMs, summary },
      });
    },
    attention: (type, message) => {
      if (!hooks.has('Notification')) return;
      void hooks.run('Notification', type, { message, notification_type: type });
    },
  };
}

function loopHooks(hooks: Hooks): Pick<CapabilityHooks, 'beforeTool' | 'afterTool' | 'onStop'> {
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
