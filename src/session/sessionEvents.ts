// A session's events fanned out to its listeners (the TUI, print mode, a parent's Task tool),
// each one logged for --debug first; and the two rows that describe a session to the outside:
// the front ends' view and the store's row for a new session.
import type { Config } from '../config/config.js';
import { thinkingMark } from '../config/thinking.js';
import { DEFAULT_REASONING_EFFORT, isReasoningModel } from '../llm/openaiApi.js';
import { debug } from '../log.js';
import type { NewSession } from '../store/index.js';
import { logSessionEvent } from './debugEvents.js';
import type { SessionEvent } from '../protocol/events.js';
import type { SessionView } from '../protocol/views.js';
import type { ChildSpec } from './children.js';

export class SessionEvents {
  private readonly listeners = new Set<(e: SessionEvent) => void>();

  on(listener: (e: SessionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected emit(e: SessionEvent): void {
    logSessionEvent(e);
    for (const l of this.listeners) l(e);
  }

  notice(level: 'info' | 'warning' | 'error', text: string): void {
    debug(`notice ${level}: ${text}`);
    this.emit({ type: 'notice', level, text });
  }
}

/** What the front ends show of a session (the footer, the title, the mode). */
export function sessionView(id: string, title: string | null, c: Config, permissionMode: SessionView['permissionMode']): SessionView {
  // OpenAI's reasoning models get reasoning.effort / reasoning_effort on every request (default medium)
  const thinking =
    c.provider === 'openai' ? (isReasoningModel(c.model.name) ? `reasoning ${c.reasoningEffort ?? DEFAULT_REASONING_EFFORT}` : '') : thinkingMark(c.thinking);
  return { id, title, model: c.model.name, provider: c.provider, cwd: c.cwd, permissionMode, ...(thinking ? { thinking } : {}) };
}

/** The row a new session is stored with on its first message. */
export function newSessionRow(id: string, c: Config, meta: Record<string, unknown>, child: Pick<ChildSpec, 'parent' | 'title'> | undefined): NewSession {
  return { id, cwd: c.cwd, provider: c.provider, model: c.model.name, meta, ...(child ? { parent: child.parent, title: child.title } : {}) };
}
