import { world } from '../runtime/world.js';
import pkg from '../../package.json' with { type: 'json' };
import type { Config } from '../config/config.js';
import { withoutSecrets } from '../config/secrets.js';
import type { Usage } from '../llm/messages.js';
import { costBreakdown } from '../session/pricing.js';
import type { ContextUsageView, SessionView } from '../protocol/views.js';
import type { SessionEvent } from '../protocol/events.js';
import { statusInput } from './input.js';
import { StatusCommand } from './statusCommand.js';

// Runs the statusLine command at start, after each turn and on each change the footer shows
// (a compaction, the permission mode, another session), with the session's figures as Claude
// Code gives them. The front end passes its events in and shows the line it gets back.

export interface FollowOptions {
  command: string;
  timeoutMs: number;
  cwd: string;
  env: NodeJS.ProcessEnv;
  version: string;
  /** The session as the footer shows it now. */
  now: () => { sessionId: string; model: string; permissionMode: string; context: ContextUsageView };
  show: (line: string) => void;
  warn: (message: string) => void;
}

/** The events the front end hears (another session opened: `session`). */
export type FollowedEvent = SessionEvent | { type: 'session' } | { type: string };

export function followStatus(o: FollowOptions): { onEvent: (e: FollowedEvent) => void; close: () => void } {
  const runner = new StatusCommand({ command: o.command, cwd: o.cwd, env: o.env, timeoutMs: o.timeoutMs, onLine: o.show, onError: o.warn });
  const started = Date.now();
  let cost = 0;
  let apiMs = 0;
  let requestAt: number | undefined;
  let input = 0;
  let output = 0;
  let compactions = 0;
  const refresh = (): void => {
    const s = o.now();
    runner.update(
      statusInput({
        ...s,
        cwd: o.cwd,
        projectDir: o.cwd,
        version: o.version,
        costUsd: cost,
        durationMs: Date.now() - started,
        apiDurationMs: apiMs,
        inputTokens: input,
        outputTokens: output,
        compactions,
      }),
    );
  };
  const onEvent = (e: FollowedEvent): void => {
    const ev = e as SessionEvent;
    switch (ev.type) {
      case 'request_start':
        requestAt = Date.now();
        break;
      case 'usage': {
        const u: Usage = ev.usage;
        if (requestAt !== undefined) apiMs += Date.now() - requestAt;
        requestAt = undefined;
        input += u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
        output += u.outputTokens;
        cost += costBreakdown(ev.model, u)?.total ?? 0;
        break;
      }
      case 'compaction_end':
        if (ev.record.status === 'applied' && ev.record.trigger !== 'micro') compactions++;
        refresh();
        break;
      // a background compaction starts or ends without a turn (agent_compacting)
      case 'compaction_start':
      case 'compaction_skipped':
      case 'turn_end':
      case 'permission_mode':
        refresh();
        break;
      default:
        if (e.type === 'session') {
          compactions = 0;
          refresh();
        }
        break;
    }
  };
  refresh();
  return { onEvent, close: () => runner.close() };
}

/** What the front end lends: the footer's session and gauge, its events, its notices. */
export interface StatusHost {
  session(): SessionView;
  contextUsage(): ContextUsageView;
  /** Events from now on, beside the front end's own subscription (which keeps the early ones). */
  observe(listener: (e: FollowedEvent) => void): () => void;
  notify(level: 'warning', text: string): void;
}

/** Starts ~/.agentrc's statusLine for a front end; undefined when none is set. */
export function statusLineFor(config: Config, host: StatusHost, show: (line: string) => void): { close: () => void } | undefined {
  const cmd = config.statusLine;
  if (!cmd) return undefined;
  const follow = followStatus({
    command: cmd.command,
    timeoutMs: cmd.timeoutMs,
    cwd: config.cwd,
    // the command never sees a key
    env: withoutSecrets(config, world().env),
    version: pkg.version,
    now: () => {
      const s = host.session();
      return { sessionId: s.id, model: s.model, permissionMode: s.permissionMode ?? 'ask', context: host.contextUsage() };
    },
    show,
    warn: (message) => host.notify('warning', message),
  });
  const off = host.observe((e) => follow.onEvent(e));
  return {
    close: () => {
      off();
      follow.close();
    },
  };
}
