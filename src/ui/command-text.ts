// What a slash command answered, as lines of styled text for the transcript: its text, the
// /context breakdown, /cost, /permissions or /help (see item-text.ts for the other items).
import { agentsText } from '../commands/format.js';
import type { CommandOutput, CostRow } from '../protocol/views.js';
import { bareName } from './completion.js';
import { formatTokens, formatUsd } from './format.js';
import { KEY_BINDINGS } from './keys-help.js';
import { sanitize } from './sanitize.js';
import { block, indented, paint, sideBySide } from './text-layout.js';
import type { Theme } from './theme.js';

type ShownOutput = Exclude<CommandOutput, { kind: 'picker' | 'models' }>;

/** The command as typed, then its output indented under it. */
export function commandLines(command: string, output: ShownOutput, columns: number, theme: Theme): string[] {
  const title = block(sanitize(command.startsWith('/') ? command : `/${command}`), columns, { color: theme.muted });
  return [...title, ...indented(outputLines(output, columns - 2, theme), 2)];
}

function outputLines(output: ShownOutput, width: number, theme: Theme): string[] {
  switch (output.kind) {
    case 'text':
      return block(sanitize(output.text), width);
    case 'context':
      return contextLines(output, width, theme);
    case 'cost':
      return [
        ...costLines(output.rows, output.totalUsd, width, theme),
        ...(output.children ?? []).flatMap((c) =>
          block(`  sub-agent ${sanitize(c.label)} (${c.id}): ${formatTokens(c.tokens)} tokens${c.usd !== undefined ? ` · ${formatUsd(c.usd)}` : ''}`, width, {
            color: theme.muted,
          }),
        ),
      ];
    case 'agents':
      return block(sanitize(agentsText(output.agents, output.warnings)), width);
    case 'permissions':
      return permissionLines(output.rules, output.mode, output.meaning, width, theme);
    case 'help':
      return helpLines(output.commands, width, theme);
    case 'tasks':
      return block(sanitize(output.text), width);
    case 'history':
    case 'rewind':
      // shown in their own browsers over the prompt, never printed
      return [];
  }
}

const BAR = 20;

function bar(fraction: number, size: number): string {
  const n = Math.min(size, Math.max(0, Math.round(fraction * size)));
  return '█'.repeat(n) + '░'.repeat(size - n);
}

/**
 * Each part's share of the whole, in tenths of a percent that add up to exactly 100.0% (the
 * largest remainders get the tenths rounding dropped).
 */
function shares(parts: number[]): string[] {
  const whole = parts.reduce((a, b) => a + b, 0);
  if (whole <= 0) return parts.map(() => '—');
  const exact = parts.map((p) => (p / whole) * 1000);
  const tenths = exact.map(Math.floor);
  let left = 1000 - tenths.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => ({ i, rest: e - Math.floor(e) })).sort((a, b) => b.rest - a.rest);
  for (const { i } of order) {
    if (left <= 0) break;
    tenths[i]!++;
    left--;
  }
  return tenths.map((t) => `${(t / 10).toFixed(1)}%`);
}

/** /context: the gauge's figure (percentLeft, the footer's), then where the window goes. */
function contextLines({ rows, contextWindow, effectiveWindow, percentLeft }: Extract<ShownOutput, { kind: 'context' }>, width: number, theme: Theme): string[] {
  const used = rows.reduce((sum, r) => sum + r.tokens, 0);
  const free = Math.max(0, effectiveWindow - used);
  const reserve = Math.max(0, contextWindow - effectiveWindow);
  const all: Array<{ label: string; tokens: number; color: string | undefined }> = [
    ...rows.map((r) => ({ label: sanitize(r.label), tokens: r.tokens, color: theme.accent })),
    { label: 'Free space', tokens: free, color: theme.success },
  ];
  if (reserve > 0) all.push({ label: 'Reserved for the reply', tokens: reserve, color: theme.muted });
  // shares of the whole window: the rows, the free space and the reserve make 100%
  const whole = contextWindow > 0 ? all.reduce((sum, r) => sum + r.tokens, 0) : 0;
  const percents = whole > 0 ? shares(all.map((r) => r.tokens)) : all.map(() => '—');
  // a narrow terminal shortens the bar (then drops it, then cuts the label): the numbers always show
  const numbers = 7 + 1 + 6;
  const labelWidth = Math.min(Math.max(...all.map((r) => r.label.length)), Math.max(6, width - numbers - 1));
  const room = width - labelWidth - numbers - 2;
  const barSize = room >= 6 ? Math.min(BAR, room) : 0;
  const summary = `${percentLeft}% context left · ${formatTokens(used)} of ${formatTokens(effectiveWindow)} tokens in use · window ${formatTokens(contextWindow)}`;
  return [
    ...block(summary, width),
    ...all.flatMap((r, i) => {
      const label = r.label.length > labelWidth ? `${r.label.slice(0, labelWidth - 1)}…` : r.label.padEnd(labelWidth);
      const gauge = barSize > 0 ? ` ${paint(bar(whole > 0 ? r.tokens / whole : 0, barSize), { color: r.color })}` : '';
      return block(`${label}${gauge} ${formatTokens(r.tokens).padStart(7)} ${percents[i]!.padStart(6)}`, width, {}, 'truncate');
    }),
  ];
}

function costLines(rows: CostRow[], totalUsd: number | undefined, width: number, theme: Theme): string[] {
  if (rows.length === 0) return block('No model calls yet.', width);
  // thinking tokens are output tokens: their column (shown once a model thought) is part of Output
  const thinking = rows.some((r) => (r.usage.thinkingTokens ?? 0) > 0);
  const header = ['Model', 'Input', 'Output', ...(thinking ? ['of it thinking'] : []), 'Cache read', 'Cache write', 'Cost'];
  const body = rows.map((r) => [
    sanitize(r.model),
    formatTokens(r.usage.inputTokens),
    formatTokens(r.usage.outputTokens),
    ...(thinking ? [formatTokens(r.usage.thinkingTokens ?? 0)] : []),
    formatTokens(r.usage.cacheReadTokens),
    formatTokens(r.usage.cacheWriteTokens),
    r.usd === undefined ? 'n/a' : formatUsd(r.usd),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [
    ...block(line(header), width, { bold: true }),
    ...body.flatMap((cells) => block(line(cells), width)),
    ...block(`Total: ${totalUsd === undefined ? 'n/a (no price known for a model)' : formatUsd(totalUsd)}`, width, { color: theme.accent }),
  ];
}

function permissionLines(
  rules: Array<{ source: 'config' | 'session'; rule: string }>,
  mode: string,
  meaning: string | undefined,
  width: number,
  theme: Theme,
): string[] {
  const list =
    rules.length === 0
      ? block('No allow rules yet: commands that need approval will ask.', width, { color: theme.muted })
      : rules.flatMap((r) => block(`${paint(r.source.padEnd(7), { color: r.source === 'session' ? theme.accent : theme.muted })} ${sanitize(r.rule)}`, width));
  return [...block(`Mode: ${paint(sanitize(mode), { bold: true })}${meaning ? ` — ${sanitize(meaning)}` : ''}`, width), ...list];
}

/** A name and its description side by side, or stacked when the width is too narrow for both. */
function twoColumn(left: string, right: string, leftWidth: number, color: string | undefined, width: number): string[] {
  if (leftWidth + 24 > width) return [...block(left, width, { color }), ...indented(block(right, width - 2), 2)];
  return sideBySide(block(left, leftWidth + 2, { color }), leftWidth + 2, block(right, width - leftWidth - 2));
}

function helpLines(commands: Array<{ name: string; args?: string; description: string }>, width: number, theme: Theme): string[] {
  const sorted = [...commands].sort((a, b) => bareName(a).localeCompare(bareName(b)));
  const names = sorted.map((c) => `/${bareName(c)}${c.args ? ` ${c.args}` : ''}`);
  const nameWidth = Math.max(0, ...names.map((n) => n.length));
  const keyWidth = Math.max(...KEY_BINDINGS.map(([k]) => k.length));
  return [
    ...block('Commands', width, { bold: true }),
    ...sorted.flatMap((c, i) => twoColumn(sanitize(names[i]!), sanitize(c.description), nameWidth, theme.accent, width)),
    ' ',
    ...block('Keys', width, { bold: true }),
    ...KEY_BINDINGS.flatMap(([k, action]) => twoColumn(k, action, keyWidth, theme.accent, width)),
  ];
}
