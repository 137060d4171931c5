import { Box, Text } from 'ink';
import type { CommandOutput, ContextBreakdownRow, CostRow } from '../controller.js';
import { bareName } from '../completion.js';
import { formatTokens, formatUsd } from '../format.js';
import { KEY_BINDINGS } from '../keys-help.js';
import { sanitize } from '../sanitize.js';
import { useTheme } from '../theme.js';
import { useTerminalSize } from './terminal-size.js';

type ShownOutput = Exclude<CommandOutput, { kind: 'picker' | 'models' }>;

/** What a slash command answered: text, the /context breakdown, /cost, /permissions or /help. */
export function CommandOutputView({ command, output }: { command: string; output: ShownOutput }) {
  const theme = useTheme();
  return (
    <Box flexDirection="column">
      <Text color={theme.muted}>{sanitize(command.startsWith('/') ? command : `/${command}`)}</Text>
      <Box flexDirection="column" paddingLeft={2}>
        <OutputBody output={output} />
      </Box>
    </Box>
  );
}

function OutputBody({ output }: { output: ShownOutput }) {
  switch (output.kind) {
    case 'text':
      return <Text>{sanitize(output.text)}</Text>;
    case 'context':
      return <ContextBreakdown rows={output.rows} contextWindow={output.contextWindow} effectiveWindow={output.effectiveWindow} />;
    case 'cost':
      return <CostTable rows={output.rows} {...(output.totalUsd !== undefined ? { totalUsd: output.totalUsd } : {})} />;
    case 'permissions':
      return <PermissionsList rules={output.rules} mode={output.mode} />;
    case 'help':
      return <HelpList commands={output.commands} />;
  }
}

const BAR = 20;

function bar(fraction: number): string {
  const n = Math.min(BAR, Math.max(0, Math.round(fraction * BAR)));
  return '█'.repeat(n) + '░'.repeat(BAR - n);
}

/** Rounded as the gauge rounds it, so both say the same. */
export const percentLeft = (used: number, effective: number): number => (effective > 0 ? Math.min(100, Math.max(0, Math.round(((effective - used) / effective) * 100))) : 0);

const pct = (part: number, whole: number): string => (whole > 0 ? `${((part / whole) * 100).toFixed(1)}%` : '—');

export function ContextBreakdown({ rows, contextWindow, effectiveWindow }: { rows: ContextBreakdownRow[]; contextWindow: number; effectiveWindow: number }) {
  const theme = useTheme();
  const used = rows.reduce((sum, r) => sum + r.tokens, 0);
  const free = Math.max(0, effectiveWindow - used);
  const reserve = Math.max(0, contextWindow - effectiveWindow);
  const all: Array<{ label: string; tokens: number; color: string | undefined }> = [
    ...rows.map((r) => ({ label: sanitize(r.label), tokens: r.tokens, color: theme.accent })),
    { label: 'Free space', tokens: free, color: theme.success },
  ];
  if (reserve > 0) all.push({ label: 'Reserved for the reply', tokens: reserve, color: theme.muted });
  const labelWidth = Math.max(...all.map((r) => r.label.length));
  return (
    <Box flexDirection="column">
      <Text>
        {percentLeft(used, effectiveWindow)}% context left · {formatTokens(used)} of {formatTokens(effectiveWindow)} tokens in use · window {formatTokens(contextWindow)}
      </Text>
      {all.map((r) => (
        <Text key={r.label} wrap="truncate-end">
          {r.label.padEnd(labelWidth)} <Text color={r.color}>{bar(effectiveWindow > 0 ? r.tokens / effectiveWindow : 0)}</Text>{' '}
          {formatTokens(r.tokens).padStart(7)} {pct(r.tokens, effectiveWindow).padStart(6)}
        </Text>
      ))}
    </Box>
  );
}

export function CostTable({ rows, totalUsd }: { rows: CostRow[]; totalUsd?: number }) {
  const theme = useTheme();
  if (rows.length === 0) return <Text>No model calls yet.</Text>;
  const header = ['Model', 'Input', 'Output', 'Cache read', 'Cache write', 'Cost'];
  const body = rows.map((r) => [
    sanitize(r.model),
    formatTokens(r.usage.inputTokens),
    formatTokens(r.usage.outputTokens),
    formatTokens(r.usage.cacheReadTokens),
    formatTokens(r.usage.cacheWriteTokens),
    r.usd === undefined ? 'n/a' : formatUsd(r.usd),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return (
    <Box flexDirection="column">
      <Text bold>{line(header)}</Text>
      {body.map((cells, i) => (
        <Text key={i}>{line(cells)}</Text>
      ))}
      <Text color={theme.accent}>Total: {totalUsd === undefined ? 'n/a (no price known for a model)' : formatUsd(totalUsd)}</Text>
    </Box>
  );
}

export function PermissionsList({ rules, mode }: { rules: Array<{ source: 'config' | 'session'; rule: string }>; mode: string }) {
  const theme = useTheme();
  return (
    <Box flexDirection="column">
      <Text>
        Mode: <Text bold>{sanitize(mode)}</Text>
      </Text>
      {rules.length === 0 ? (
        <Text color={theme.muted}>No allow rules yet: commands that need approval will ask.</Text>
      ) : (
        rules.map((r, i) => (
          <Text key={i}>
            <Text color={r.source === 'session' ? theme.accent : theme.muted}>{r.source.padEnd(7)}</Text> {sanitize(r.rule)}
          </Text>
        ))
      )}
    </Box>
  );
}

/** A name and its description side by side, or stacked when the terminal is too narrow for both. */
function TwoColumn({ left, right, leftWidth, color }: { left: string; right: string; leftWidth: number; color: string | undefined }) {
  const { columns } = useTerminalSize();
  if (leftWidth + 24 > columns - 2) {
    return (
      <Box flexDirection="column">
        <Text color={color}>{left}</Text>
        <Box paddingLeft={2}>
          <Text>{right}</Text>
        </Box>
      </Box>
    );
  }
  return (
    <Box flexDirection="row">
      <Box width={leftWidth + 2} flexShrink={0}>
        <Text color={color}>{left}</Text>
      </Box>
      <Box flexShrink={1}>
        <Text>{right}</Text>
      </Box>
    </Box>
  );
}

export function HelpList({ commands }: { commands: Array<{ name: string; args?: string; description: string }> }) {
  const theme = useTheme();
  const sorted = [...commands].sort((a, b) => bareName(a).localeCompare(bareName(b)));
  const names = sorted.map((c) => `/${bareName(c)}${c.args ? ` ${c.args}` : ''}`);
  const width = Math.max(0, ...names.map((n) => n.length));
  const keyWidth = Math.max(...KEY_BINDINGS.map(([k]) => k.length));
  return (
    <Box flexDirection="column">
      <Text bold>Commands</Text>
      {sorted.map((c, i) => (
        <TwoColumn key={names[i]} left={sanitize(names[i]!)} right={sanitize(c.description)} leftWidth={width} color={theme.accent} />
      ))}
      <Text> </Text>
      <Text bold>Keys</Text>
      {KEY_BINDINGS.map(([k, action]) => (
        <TwoColumn key={k} left={k} right={action} leftWidth={keyWidth} color={theme.accent} />
      ))}
    </Box>
  );
}
