// What --debug writes about a session's events: each tool call (name, duration, output size,
// error), each compaction (decision, progress, outcome) and each retry with its cause. Figures
// and names only; message and tool contents only with --debug=full. Every line passes through
// redact() (log.ts), so no key reaches the file either way.
import { debug, debugEnabled, debugFull } from '../log.js';
import type { SessionEvent } from '../protocol/events.js';

const MAX_CONTENT = 2_000;
const clip = (s: string): string => (s.length > MAX_CONTENT ? `${s.slice(0, MAX_CONTENT)}… (${s.length} chars)` : s);

export function logSessionEvent(e: SessionEvent): void {
  if (!debugEnabled()) return;
  const full = debugFull();
  switch (e.type) {
    case 'tool_start':
      return debug('tool call', { id: e.id, name: e.name, ...(full ? { input: clip(JSON.stringify(e.input)) } : {}) });
    case 'tool_end':
      return debug('tool done', {
        id: e.id,
        name: e.name,
        status: e.status,
        ms: e.durationMs,
        outputChars: e.output.content.length,
        isError: e.output.isError,
        // an error's text can quote the call (a command, a path): content, so --debug=full only
        ...(full ? { output: clip(e.output.content) } : {}),
      });
    case 'retry':
      return debug('retry', { attempt: e.attempt, of: e.maxAttempts, delayMs: e.delayMs, cause: e.kind, message: e.message });
    case 'error':
      return debug('error', { kind: e.kind, message: e.message });
    case 'compaction_start':
      return debug('compaction start', { trigger: e.trigger, tokensBefore: e.tokensBefore, ...(e.focus && full ? { focus: e.focus } : {}) });
    case 'compaction_progress':
      return debug('compaction progress', { trigger: e.trigger, stage: e.stage });
    case 'compaction_skipped':
      return debug('compaction skipped', { trigger: e.trigger, reason: e.reason });
    case 'compaction_end': {
      const r = e.record;
      return debug('compaction end', {
        trigger: r.trigger,
        status: r.status,
        tokensBefore: r.tokensBefore,
        tokensAfter: r.tokensAfter,
        ...(r.reason ? { reason: r.reason } : {}),
        ...(r.method ? { method: r.method } : {}),
        ...(r.archivedCount !== undefined ? { archived: r.archivedCount } : {}),
        ...(r.summaryTokens !== undefined ? { summaryTokens: r.summaryTokens } : {}),
        ...(r.model ? { model: r.model } : {}),
        usage: r.usage,
        ...(full && r.summary ? { summary: clip(r.summary) } : {}),
      });
    }
    case 'turn_end':
      return debug('turn end', { reason: e.reason, steps: e.steps, usage: e.usage });
    case 'prompt_refused':
      return debug('prompt refused', { reason: e.message });
    case 'message':
      return full ? debug('message', { role: e.message.role, kind: e.message.kind, blocks: clip(JSON.stringify(e.message.blocks)) }) : undefined;
    default:
      return;
  }
}
