import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { compactionEntry, type ClearedOutput, type CompactionCommit, type CompactionRecord } from '../../src/history/compaction.js';
import { applyRecord } from '../../src/history/view.js';
import { isToolResultMessage, type Block, type Message, type Usage } from '../../src/llm/messages.js';
import { tempDir as sharedTempDir } from '../tempDirs.js';

/**
 * A fresh private temp directory; remove it with cleanup() once the test has closed its store
 * (test/tempDirs.ts removes it when the file ends otherwise).
 */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = sharedTempDir('agent-store-test-');
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Ids carry a tag drawn once per module load, so they never take the shape of ids a fixture
 * recorded with an earlier build of these helpers (`cp00021`): with shared modules the counter
 * stands wherever the files that ran before in the worker left it, and a bare counter would meet
 * a fixture's id only in some orders.
 */
const run = randomBytes(3).toString('hex');
let counter = 0;
export const uid = (prefix: string): string => `${prefix}${run}_${(++counter).toString().padStart(5, '0')}`;

export const usage = (n = 1): Usage => ({ inputTokens: 100 * n, outputTokens: 10 * n, cacheReadTokens: n, cacheWriteTokens: 2 * n });

export const user = (text: string, extra: Partial<Message> = {}): Message => ({
  id: uid('u'),
  role: 'user',
  kind: 'normal',
  createdAt: 1_700_000_000_000 + counter,
  blocks: [{ type: 'text', text }],
  ...extra,
});

export const assistant = (blocks: Block[] | string, extra: Partial<Message> = {}): Message => ({
  id: uid('a'),
  role: 'assistant',
  kind: 'normal',
  createdAt: 1_700_000_000_000 + counter,
  blocks: typeof blocks === 'string' ? [{ type: 'text', text: blocks }] : blocks,
  usage: usage(),
  model: 'claude-test',
  ...extra,
});

/** An assistant tool call and the user message answering it. */
export function toolPair(name: string, input: Record<string, unknown>, output: string, isError = false): [Message, Message] {
  const useId = uid('toolu_');
  const call = assistant([{ type: 'tool_use', id: useId, name, input }]);
  const result: Message = {
    id: uid('r'),
    role: 'user',
    kind: 'normal',
    createdAt: 1_700_000_000_000 + counter,
    blocks: [{ type: 'tool_result', toolUseId: useId, content: output, isError }],
  };
  return [call, result];
}

export function record(trigger: CompactionRecord['trigger'], extra: Partial<CompactionRecord> = {}): CompactionRecord {
  return {
    id: uid('cmp_'),
    trigger,
    status: 'applied',
    tokensBefore: 1000,
    tokensAfter: 200,
    archivedCount: 0,
    preservedCount: 0,
    summaryTokens: 0,
    durationMs: 12,
    model: 'claude-test',
    usage: usage(3),
    createdAt: 1_700_000_500_000 + counter,
    ...extra,
  };
}

/** Micro compaction as the engine would do it: clear every tool result except the `keep` most recent. */
export function microChange(visible: readonly Message[], keep: number): CompactionCommit | undefined {
  const calls = new Map<string, { name: string; input: Record<string, unknown> }>();
  for (const m of visible) for (const b of m.blocks) if (b.type === 'tool_use') calls.set(b.id, { name: b.name, input: b.input });
  const candidates: Array<{ msgIndex: number; blockIndex: number }> = [];
  visible.forEach((m, i) =>
    m.blocks.forEach((b, j) => {
      if (b.type === 'tool_result' && !b.cleared) candidates.push({ msgIndex: i, blockIndex: j });
    }),
  );
  const toClear = candidates.slice(0, Math.max(0, candidates.length - keep));
  if (toClear.length === 0) return undefined;
  const messages = visible.map((m) => ({ ...m, blocks: [...m.blocks] }));
  const cleared: ClearedOutput[] = [];
  const replacedIdx = new Set<number>();
  for (const { msgIndex, blockIndex } of toClear) {
    const m = messages[msgIndex]!;
    const b = m.blocks[blockIndex]!;
    if (b.type !== 'tool_result') continue;
    const call = calls.get(b.toolUseId);
    const archiveId = uid('tx_');
    const summary = String(call?.input.command ?? call?.input.path ?? '');
    cleared.push({
      archiveId,
      messageId: m.id,
      toolUseId: b.toolUseId,
      toolName: call?.name ?? 'Tool',
      summary,
      content: b.content,
      isError: b.isError,
      tokens: b.content.length,
    });
    m.blocks[blockIndex] = {
      ...b,
      content: `[${call?.name} output cleared — Recall id ${archiveId}]`,
      cleared: { archiveId, originalTokens: b.content.length },
    };
    replacedIdx.add(msgIndex);
  }
  return {
    record: record('micro', { archivedCount: cleared.length }),
    body: { revisions: [...replacedIdx].map((i) => ({ id: messages[i]!.id, blocks: messages[i]!.blocks })) },
    added: [],
    cleared,
  };
}

/**
 * Auto compaction: archive everything before the `keepTurns`-th last user turn start, put a
 * checkpoint first, keep pinned messages of the head and the tail.
 */
export function autoChange(visible: readonly Message[], keepTurns: number, trigger: CompactionRecord['trigger'] = 'auto'): CompactionCommit | undefined {
  const starts = visible.map((m, i) => (m.role === 'user' && !isToolResultMessage(m) && m.kind === 'normal' ? i : -1)).filter((i) => i > 0);
  const cut = starts[starts.length - keepTurns];
  if (cut === undefined || cut === 0) return undefined;
  const head = visible.slice(0, cut);
  const pinned = head.filter((m) => m.pinned && !isPairHalf(m));
  const archived = head.filter((m) => !pinned.includes(m));
  if (archived.length === 0) return undefined;
  const summary = `Checkpoint: ${archived.length} messages archived; use Recall to search them.`;
  const checkpoint: Message = {
    id: uid('cp'),
    role: 'user',
    kind: 'checkpoint',
    createdAt: 1_700_000_900_000 + counter,
    blocks: [{ type: 'text', text: summary }],
  };
  return {
    record: record(trigger, {
      archivedCount: archived.length,
      preservedCount: pinned.length + visible.length - cut,
      summary,
      method: 'single',
      summaryTokens: 12,
    }),
    body: { view: [checkpoint, ...pinned, ...visible.slice(cut)].map((m) => m.id) },
    added: [checkpoint],
    cleared: [],
  };
}

/** The visible history after a compaction, as the reducer gives it (history/view.ts). */
export const viewAfter = (visible: readonly Message[], c: CompactionCommit): Message[] => applyRecord(visible, compactionEntry(c), c.added);

/** The ids a compaction takes out of view. */
export const archivedBy = (visible: readonly Message[], c: CompactionCommit): string[] => {
  const after = new Set(viewAfter(visible, c).map((m) => m.id));
  return visible.filter((m) => !after.has(m.id)).map((m) => m.id);
};

/** Pinning only applies to plain turns here: pinned halves of tool pairs would split the pair. */
const isPairHalf = (m: Message): boolean => isToolResultMessage(m) || m.blocks.some((b) => b.type === 'tool_use');

/** A message as a build before schema v13 stored it: no origin on it or its text blocks, no outcome on its results. */
export function asStoredBefore(m: Message): Message {
  const { origin: _, ...rest } = m;
  return {
    ...rest,
    blocks: m.blocks.map((b): Block => {
      if (b.type === 'text') {
        const { origin: _o, ...t } = b;
        return t;
      }
      if (b.type === 'tool_result') {
        const { outcome: _r, ...r } = b;
        return r;
      }
      return b;
    }),
  };
}
