import type { ContextUsageView } from '../protocol/views.js';

// What a statusLine command reads on stdin: Claude Code's JSON (session_id, model {id,
// display_name}, workspace {current_dir, project_dir}, cost, context_window), plus this
// project's gauge, compaction count and background compaction under agent_* names.

export interface StatusFacts {
  sessionId: string;
  model: string;
  cwd: string;
  projectDir: string;
  version: string;
  costUsd: number;
  durationMs: number;
  apiDurationMs: number;
  inputTokens: number;
  outputTokens: number;
  context: ContextUsageView;
  compactions: number;
  permissionMode: string;
}

export function statusInput(f: StatusFacts): object {
  const used = f.context.effectiveWindow > 0 ? Math.round((f.context.tokens / f.context.contextWindow) * 100) : 0;
  return {
    hook_event_name: 'Status',
    session_id: f.sessionId,
    cwd: f.cwd,
    model: { id: f.model, display_name: f.model },
    workspace: { current_dir: f.cwd, project_dir: f.projectDir },
    version: f.version,
    output_style: { name: 'default' },
    cost: { total_cost_usd: f.costUsd, total_duration_ms: f.durationMs, total_api_duration_ms: f.apiDurationMs, total_lines_added: 0, total_lines_removed: 0 },
    context_window: {
      total_input_tokens: f.inputTokens,
      total_output_tokens: f.outputTokens,
      context_window_size: f.context.contextWindow,
      used_percentage: used,
      remaining_percentage: 100 - used,
    },
    exceeds_200k_tokens: f.context.tokens > 200_000,
    agent_gauge: {
      tokens: f.context.tokens,
      effective_window: f.context.effectiveWindow,
      percent_left: f.context.percentLeft,
      state: f.context.state,
      auto_compact_at_percent: f.context.autoCompactAtPercent,
    },
    // a compaction written in the background (its summary ready or still on its way); null when none
    agent_compacting: f.context.compacting
      ? { trigger: f.context.compacting.trigger, ready: f.context.compacting.ready, started_at_ms: f.context.compacting.startedAt }
      : null,
    agent_compactions: f.compactions,
    agent_permission_mode: f.permissionMode,
  };
}
