import { Box, Text } from 'ink';
import { formatTokens } from '../format.js';
import type { ModelPickerState } from '../model-picker.js';
import { visibleModels } from '../model-picker.js';
import { sanitize } from '../sanitize.js';
import { boxBorder, useTheme } from '../theme.js';

const MAX_ROWS = 10;

const price = (input?: number, output?: number): string =>
  input === undefined || output === undefined ? 'price unknown' : `$${input} / $${output} per M in/out`;

/** /model without a name: name, provider, context window and price; the current one marked. */
export function ModelPicker({ state }: { state: ModelPickerState }) {
  const theme = useTheme();
  const visible = visibleModels(state);
  const start = Math.max(0, Math.min(state.selected - Math.floor(MAX_ROWS / 2), visible.length - MAX_ROWS));
  const rows = visible.slice(start, start + MAX_ROWS);
  const width = Math.max(...rows.map((m) => m.name.length), 10);
  return (
    <Box flexDirection="column" borderStyle={boxBorder(theme)} borderColor={theme.accent} paddingX={1}>
      <Text bold>
        Switch model{' '}
        <Text color={theme.muted} bold={false}>
          {state.filter ? `filter: ${sanitize(state.filter)}` : '(type to filter)'}
        </Text>
      </Text>
      {visible.length === 0 ? <Text color={theme.muted}>No model matches.</Text> : null}
      {start > 0 ? <Text color={theme.muted}> ↑ {start} more</Text> : null}
      {rows.map((m, i) => {
        const selected = start + i === state.selected;
        return (
          <Text key={m.name} wrap="truncate-end" color={selected ? theme.accent : undefined} bold={selected} inverse={selected && !theme.color}>
            {selected ? '❯ ' : '  '}
            {sanitize(m.name).padEnd(width)}
            <Text color={selected ? undefined : theme.muted}>
              {'  '}
              {m.provider.padEnd(9)} {`${formatTokens(m.contextWindow)} window`.padEnd(14)} {price(m.inputUsdPerM, m.outputUsdPerM)}
              {m.source === 'config' ? ' · .agentrc' : ''}
              {m.name === state.current ? ' · current' : ''}
            </Text>
          </Text>
        );
      })}
      {start + rows.length < visible.length ? <Text color={theme.muted}> ↓ {visible.length - start - rows.length} more</Text> : null}
      <Text color={theme.muted}>↑↓ choose · enter switch · esc close</Text>
    </Box>
  );
}
