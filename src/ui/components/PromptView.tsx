import { useSyncExternalStore } from 'react';
import { Box, Text } from 'ink';
import { bareName } from '../completion.js';
import { completionMaxRows, promptMaxLines, promptViewport } from '../layout-budget.js';
import type { MentionView } from '../mention-completion.js';
import type { CompletionView } from '../completion.js';
import type { PromptModel } from '../prompt-model.js';
import { sanitize } from '../sanitize.js';
import { onSkinToneColumns, skinToneColumns } from '../stringWidth.js';
import { useStore } from '../store.js';
import { boxBorder, useTheme } from '../theme.js';
import { useTerminalSize } from './terminal-size.js';

const PLACEHOLDER = 'Ask for a change, or type / for commands';

// Emoji skin-tone modifiers: terminals disagree on their width (tmux and xterm draw 👍🏽 four
// columns wide, most others two, string-width says two), and a wrong guess pushes the box's right
// border onto the next line. The terminal said at start how wide it draws them (emoji-probe.ts)
// and the width function counts that; one that did not say gets the emoji without its tone in
// the box (the text keeps it).
const SKIN_TONE = /[\u{1F3FB}-\u{1F3FF}]/gu;
const withTone = (text: string): string => text;
const withoutTone = (text: string): string => text.replace(SKIN_TONE, '');

/** The input box: the text with its cursor, and the slash-command completions under it. */
export function PromptView({ model }: { model: PromptModel }) {
  const { text, cursor, completion, mention, search, note } = useStore(model.store);
  // the terminal's answer may come after the first frame: the box is drawn again with it
  const shown = useSyncExternalStore(onSkinToneColumns, skinToneColumns) === undefined ? withoutTone : withTone;
  const theme = useTheme();
  const { rows } = useTerminalSize();
  const lines = text.split('\n');
  const before = text.slice(0, cursor);
  const cursorLine = before.split('\n').length - 1;
  const col = cursor - (before.lastIndexOf('\n') + 1);
  const { first, count, below } = promptViewport(lines.length, cursorLine, promptMaxLines(rows));
  const visible = lines.slice(first, first + count);
  const shellMode = text.startsWith('!');
  return (
    <Box flexDirection="column">
      <Box flexDirection="column" borderStyle={boxBorder(theme)} borderColor={shellMode ? theme.warning : theme.muted} borderDimColor={!theme.color}>
        {first > 0 ? <Text color={theme.muted}> ↑ {first} more lines</Text> : null}
        {visible.map((line, i) => {
          const n = first + i;
          const prefix = n === 0 ? '❯ ' : '  ';
          if (n !== cursorLine) {
            return (
              <Text key={n}>
                <Text color={theme.accent}>{prefix}</Text>
                {shown(line)}
              </Text>
            );
          }
          const at = [...line.slice(col)][0] ?? '';
          return (
            <Text key={n}>
              <Text color={theme.accent}>{prefix}</Text>
              {shown(line.slice(0, col))}
              <Text inverse>{at === '' ? ' ' : shown(at) || ' '}</Text>
              {shown(line.slice(col + at.length))}
              {text === '' ? <Text color={theme.muted}>{PLACEHOLDER}</Text> : null}
            </Text>
          );
        })}
        {below > 0 ? <Text color={theme.muted}> ↓ {below} more lines</Text> : null}
      </Box>
      {search ? (
        <Text color={theme.accent} wrap="truncate-end">
          {'  '}search earlier prompts: {sanitize(search.query)}
          <Text color={theme.muted}>{search.query !== '' && search.index === -1 ? ' — no match' : ''} · ctrl+r older · enter send · esc cancel</Text>
        </Text>
      ) : null}
      {completion ? <Completions completion={completion} maxRows={completionMaxRows(rows)} /> : null}
      {mention && mention.matches.length > 0 ? <PathMatches view={mention} maxRows={completionMaxRows(rows)} /> : null}
      {note ? (
        <Text color={theme.info} wrap="truncate-end">
          {'  '}
          {note}
        </Text>
      ) : null}
      {!completion?.matches.length && model.usage(text) ? (
        <Text color={theme.info} wrap="truncate-end">
          {'  '}
          {model.usage(text)}
        </Text>
      ) : null}
      {shellMode && !completion ? (
        <Text color={theme.warning} wrap="truncate-end">
          {'  '}! shell mode: runs in your shell now, no approval; the output goes to the model as context
        </Text>
      ) : null}
    </Box>
  );
}

function Completions({ completion, maxRows }: { completion: CompletionView; maxRows: number }) {
  const theme = useTheme();
  const { matches, index, word, suggestion } = completion;
  if (matches.length === 0) {
    if (word.length <= 1) return null;
    return (
      <Box paddingLeft={2}>
        <Text color={theme.warning}>
          Unknown command {sanitize(word)}
          {suggestion ? ` — did you mean /${bareName(suggestion)}?` : ' — /help lists the commands'}
        </Text>
      </Box>
    );
  }
  const start = index >= maxRows ? index - maxRows + 1 : 0;
  const highlighted = Math.max(0, index);
  const rows = matches.slice(start, start + maxRows);
  const labels = rows.map((c) => `/${bareName(c)}${c.args ? ` ${c.args}` : ''}`);
  const width = Math.max(...labels.map((l) => l.length));
  const more = matches.length - start - rows.length;
  return (
    <Box flexDirection="column" paddingLeft={1}>
      {rows.map((c, i) => {
        const selected = start + i === highlighted;
        return (
          <Box key={c.name} flexDirection="row">
            <Box flexShrink={0}>
              <Text color={selected ? theme.accent : undefined} bold={selected} inverse={selected && !theme.color}>
                {selected ? '▸ ' : '  '}
                {labels[i]!.padEnd(width)}
              </Text>
            </Box>
            <Box flexShrink={1}>
              <Text color={theme.muted} wrap="truncate-end">
                {'  '}
                {sanitize(c.description)}
              </Text>
            </Box>
          </Box>
        );
      })}
      {more > 0 ? <Text color={theme.muted}> … {more} more (↑↓ to choose)</Text> : null}
    </Box>
  );
}

/** The paths matching an @word: the highlighted one is taken with Tab or Enter. */
function PathMatches({ view, maxRows }: { view: MentionView; maxRows: number }) {
  const theme = useTheme();
  const start = view.index >= maxRows ? view.index - maxRows + 1 : 0;
  const rows = view.matches.slice(start, start + maxRows);
  const more = view.matches.length - start - rows.length;
  return (
    <Box flexDirection="column" paddingLeft={1}>
      {rows.map((p, i) => {
        const selected = start + i === view.index;
        return (
          <Text key={p} color={selected ? theme.accent : undefined} bold={selected} inverse={selected && !theme.color} wrap="truncate-end">
            {selected ? '▸ ' : '  '}@{sanitize(p)}
          </Text>
        );
      })}
      {more > 0 ? <Text color={theme.muted}> … {more} more (↑↓ to choose, Tab to take)</Text> : null}
    </Box>
  );
}
