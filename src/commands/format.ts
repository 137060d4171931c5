import type { CommandOutput } from '../protocol/views.js';
import { formatRewindTargets } from './rewind.js';
import { fmtInt } from '../tools/format.js';

/** Plain-text rendering of a command's output, for print mode and logs. */
export function formatCommandOutput(out: CommandOutput): string {
  switch (out.kind) {
    case 'text':
    case 'tasks':
      return out.text;
    case 'context': {
      const used = out.rows.reduce((sum, r) => sum + r.tokens, 0);
      const rows = [...out.rows, { label: 'Free', tokens: Math.max(0, out.effectiveWindow - used) }];
      const width = Math.max(...rows.map((r) => r.label.length));
      const lines = rows.map((r) => `${r.label.padEnd(width)}  ${fmtInt(r.tokens).padStart(9)}  ${percent(r.tokens, out.effectiveWindow)}`);
      return [
        `${out.percentLeft}% context left · ${fmtInt(used)} of ${fmtInt(out.effectiveWindow)} tokens in use · window ${fmtInt(out.contextWindow)}`,
        ...lines,
      ].join('\n');
    }
    case 'cost': {
      if (out.rows.length === 0) return 'No model calls yet.';
      const lines = out.rows.map(
        (r) =>
          `${r.model}: ${fmtInt(r.usage.inputTokens)} in, ${fmtInt(r.usage.outputTokens)} out` +
          (r.usage.thinkingTokens ? ` (${fmtInt(r.usage.thinkingTokens)} thinking)` : '') +
          (r.usage.cacheReadTokens || r.usage.cacheWriteTokens
            ? `, ${fmtInt(r.usage.cacheReadTokens)} cache read, ${fmtInt(r.usage.cacheWriteTokens)} cache write${r.usage.cacheWrite1hTokens ? ` (${fmtInt(r.usage.cacheWrite1hTokens)} for 1h)` : ''}`
            : '') +
          (r.cost
            ? ` [input $${r.cost.input.toFixed(4)}, output $${r.cost.output.toFixed(4)}, cache read $${r.cost.cacheRead.toFixed(4)}, cache write $${r.cost.cacheWrite.toFixed(4)}]`
            : '') +
          (r.usd !== undefined ? ` ≈ $${r.usd.toFixed(4)}` : ' (no price known)'),
      );
      if (out.totalUsd !== undefined) lines.push(`Total ≈ $${out.totalUsd.toFixed(4)}`);
      for (const c of out.children ?? [])
        lines.push(`  sub-agent ${c.label} (${c.id}): ${fmtInt(c.tokens)} tokens${c.usd !== undefined ? ` ≈ $${c.usd.toFixed(4)}` : ''}`);
      return lines.join('\n');
    }
    case 'permissions': {
      const rules = out.rules.length ? out.rules.map((r) => `  ${r.rule} (${r.source})`) : ['  none'];
      return [`Permission mode: ${out.mode}${out.meaning ? ` — ${out.meaning}` : ''}`, 'Allowed without asking:', ...rules].join('\n');
    }
    case 'help':
      return out.commands.map((c) => `/${c.name}${c.args ? ` ${c.args}` : ''} — ${c.description}`).join('\n');
    case 'history': {
      const { query, page, pageSize, hits, hasMore } = out.result;
      const lines = hits.map((h, i) => `${(page - 1) * pageSize + i + 1}. ${h.label} — ${h.id}\n   ${h.snippet.replace(/\s+/g, ' ')}`);
      if (hasMore) lines.push(`More: /history ${query} page ${page + 1}`);
      lines.push('Open one: /history open <id>');
      return lines.join('\n');
    }
    case 'models':
      return out.models
        .map((m) => {
          const price = m.inputUsdPerM !== undefined ? `$${m.inputUsdPerM}/$${m.outputUsdPerM} per M in/out` : 'no price known';
          return `${m.name === out.current ? '*' : ' '} ${m.name}  ${m.provider}  ${fmtInt(m.contextWindow)}-token window  ${price}${m.source === 'config' ? '  (.agentrc)' : ''}`;
        })
        .join('\n');
    case 'rewind':
      return formatRewindTargets(out.targets);
    case 'agents':
      return agentsText(out.agents, out.warnings);
    case 'picker':
      return out.sessions.map((s) => `${s.id}  ${new Date(s.updatedAt).toISOString()}  ${s.title ?? '(untitled)'}  ${s.cwd}`).join('\n');
  }
}

function percent(part: number, whole: number): string {
  return whole > 0 ? `${((part / whole) * 100).toFixed(1)}%` : '';
}

/** /agents as text: each agent with where it comes from, its model and tools; then skipped files. */
export function agentsText(
  agents: ReadonlyArray<{ name: string; description: string; source: string; file?: string; model?: string; tools: string[] }>,
  warnings: readonly string[],
): string {
  if (agents.length === 0) return 'No Task tool in this session.';
  const lines = agents.map((a) => `${a.name} (${a.file ?? a.source}) · model ${a.model ?? 'inherited'} · tools ${a.tools.join(', ')}\n  ${a.description}`);
  if (warnings.length > 0) lines.push('Skipped or partly read:', ...warnings.map((w) => `  ${w}`));
  lines.push('Agent files: .agent/agents/*.md, .claude/agents/*.md (project), ~/.config/agent/agents/*.md, ~/.claude/agents/*.md (personal).');
  return lines.join('\n');
}
