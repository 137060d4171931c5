import { randomUUID } from 'node:crypto';
import { reportLines } from '../compaction/reportText.js';
import type { Usage } from '../llm/messages.js';
import { costBreakdown } from '../session/pricing.js';
import type { SessionEvent } from '../protocol/events.js';
import type { GoalView } from '../protocol/views.js';
import { claudeContent, claudeOutcome, claudeStopReason, claudeUsage } from './claudeShapes.js';
import { PartialMessages } from './partialStream.js';

// Print mode's `--output-format stream-json` and `json`: the session's events become Claude
// Code's messages (system/init, assistant, user, system/compact_boundary, result). One stream
// per run; with `--input-format stream-json` each input line is one turn and one result.

export interface InitFacts {
  cwd: string;
  tools: readonly string[];
  mcpServers: ReadonlyArray<{ name: string; status: string }>;
  model: string;
  permissionMode: string;
  slashCommands: readonly string[];
  skills: readonly string[];
  version: string;
}

/** How one turn (or one slash command) ended, for its result message. */
export interface TurnFacts {
  reason: string;
  /** Something failed besides the turn's own reason (messages left unsaved, a failed /compact). */
  failed: boolean;
  text: string;
  usage: Usage;
  /** Model calls made. */
  steps: number;
  model: string;
  contextWindow: number;
  maxOutputTokens: number;
  durationMs: number;
  errors: readonly string[];
  /** The project's own figures, under agent_* names. */
  extras: Record<string, unknown>;
}

export class ClaudeStream {
  private denials: Array<{ tool_name: string; tool_use_id: string; tool_input: unknown }> = [];
  private inputs = new Map<string, unknown>();
  private requestAt: number | undefined;
  private apiMs = 0;
  private lastStop: string | null = null;
  private turns = 0;
  private model = '';
  /** A compaction started and its status message went out (system/status "compacting"). */
  private compacting = false;
  /** --include-partial-messages: the replies as they stream (stream_event lines). */
  private readonly partial: PartialMessages | undefined;

  /** write: where messages go (nothing for `json`, which prints only the result). */
  constructor(
    private readonly write: (msg: object) => void,
    private readonly sessionId: () => string,
    opts: { partialMessages?: boolean } = {},
  ) {
    this.partial = opts.partialMessages ? new PartialMessages(write, sessionId, () => this.model) : undefined;
  }

  init(f: InitFacts): void {
    this.model = f.model;
    this.write({
      type: 'system',
      subtype: 'init',
      cwd: f.cwd,
      session_id: this.sessionId(),
      tools: f.tools,
      mcp_servers: f.mcpServers,
      model: f.model,
      permissionMode: f.permissionMode,
      slash_commands: f.slashCommands,
      apiKeySource: 'none',
      output_style: 'default',
      skills: f.skills,
      plugins: [],
      uuid: randomUUID(),
      agent_version: f.version,
    });
  }

  /** A new input line: denials and API time are counted per result. */
  beginTurn(): void {
    this.denials = [];
    this.apiMs = 0;
    this.turns = 0;
  }

  /** The session's goal changed (src/goals/): a system message of this program's own, as Claude Code has none. */
  goal(goal: GoalView | null): void {
    this.write({ type: 'system', subtype: 'agent_goal', session_id: this.sessionId(), uuid: randomUUID(), goal });
  }

  event(e: SessionEvent): void {
    const common = () => ({ parent_tool_use_id: null, session_id: this.sessionId(), uuid: randomUUID() });
    const streamedId = this.partial?.event(e, e.type === 'message' && e.message.interrupted ? null : this.lastStop);
    switch (e.type) {
      case 'request_start':
        this.requestAt = Date.now();
        break;
      case 'usage':
        if (this.requestAt !== undefined) this.apiMs += Date.now() - this.requestAt;
        this.requestAt = undefined;
        this.lastStop = e.stopReason === 'other' || e.stopReason === 'context_window' ? null : e.stopReason;
        break;
      case 'tool_start':
        this.inputs.set(e.id, e.input);
        break;
      case 'tool_end':
        if (e.status === 'denied') this.denials.push({ tool_name: e.name, tool_use_id: e.id, tool_input: this.inputs.get(e.id) ?? {} });
        this.inputs.delete(e.id);
        break;
      case 'message': {
        const m = e.message;
        if (m.role === 'assistant') {
          this.turns++;
          this.write({
            type: 'assistant',
            message: {
              // the id its stream events carried, when they went out
              id: streamedId ?? m.id,
              type: 'message',
              role: 'assistant',
              model: m.model ?? '',
              content: claudeContent(m),
              stop_reason: m.interrupted ? null : this.lastStop,
              stop_sequence: null,
              usage: claudeUsage(m.usage ?? { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, true),
            },
            ...common(),
          });
          this.lastStop = null;
        } else if (m.blocks.some((b) => b.type === 'tool_result')) {
          // the tools' results go back to the model as a user message, as Claude Code prints them
          this.write({ type: 'user', message: { role: 'user', content: claudeContent(m) }, ...common() });
        }
        break;
      }
      case 'compaction_start':
        // Claude Code's status while a summary is written (in the background here: turns go on meanwhile)
        if (e.trigger === 'micro') break;
        this.compacting = true;
        this.write({ type: 'system', subtype: 'status', status: 'compacting', session_id: this.sessionId(), uuid: randomUUID() });
        break;
      case 'compaction_skipped':
        if (e.trigger !== 'micro') this.compacted(false);
        break;
      case 'compaction_end': {
        const r = e.record;
        if (r.trigger !== 'micro') this.compacted(r.status === 'applied');
        if (r.status !== 'applied' || r.trigger === 'micro') break;
        this.write({
          type: 'system',
          subtype: 'compact_boundary',
          session_id: this.sessionId(),
          uuid: randomUUID(),
          compact_metadata: { trigger: r.trigger === 'manual' ? 'manual' : 'auto', pre_tokens: r.tokensBefore, post_tokens: r.tokensAfter },
          agent_compaction: {
            id: r.id,
            trigger: r.trigger,
            archived: r.archivedCount,
            kept: r.preservedCount,
            duration_ms: r.durationMs,
            report: reportLines(r),
          },
        });
        break;
      }
      default:
        break;
    }
  }

  /** The status after a compaction that started: null, with how it ended. */
  private compacted(success: boolean): void {
    if (!this.compacting) return;
    this.compacting = false;
    this.write({
      type: 'system',
      subtype: 'status',
      status: null,
      compact_result: success ? 'success' : 'failed',
      session_id: this.sessionId(),
      uuid: randomUUID(),
    });
  }

  /** The result message (also what `--output-format json` prints alone). */
  result(t: TurnFacts): object {
    const cost = costBreakdown(t.model, t.usage);
    const outcome = claudeOutcome(t.reason, t.failed);
    return {
      type: 'result',
      subtype: outcome.subtype,
      is_error: outcome.is_error,
      duration_ms: t.durationMs,
      duration_api_ms: this.apiMs,
      num_turns: Math.max(this.turns, t.steps),
      // Claude Code's error results carry `errors` instead of a result text
      ...(outcome.is_error ? { errors: t.errors.length > 0 ? t.errors : [`the turn ended: ${t.reason}`] } : { result: t.text }),
      stop_reason: claudeStopReason(t.reason),
      session_id: this.sessionId(),
      total_cost_usd: cost?.total ?? 0,
      usage: claudeUsage(t.usage),
      modelUsage: {
        [t.model]: {
          inputTokens: t.usage.inputTokens,
          outputTokens: t.usage.outputTokens,
          cacheReadInputTokens: t.usage.cacheReadTokens,
          cacheCreationInputTokens: t.usage.cacheWriteTokens,
          webSearchRequests: 0,
          costUSD: cost?.total ?? 0,
          contextWindow: t.contextWindow,
          maxOutputTokens: t.maxOutputTokens,
        },
      },
      permission_denials: this.denials,
      uuid: randomUUID(),
      ...t.extras,
    };
  }
}
