// Transcript items of every kind and shape (short, wrapping, cut, coloured by status), for the
// tests that pin how finished items look: test/ui/item-look.test.tsx and the first-frame print.
import type { CompactionRecord } from '../../src/compaction/types.js';
import type { TranscriptItem } from '../../src/ui/transcript.js';

const words = (n: number, seed = 1): string => {
  const vocab = ['alpha', 'be', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'mu'];
  return Array.from({ length: n }, (_, i) => vocab[(i * 7 + seed) % vocab.length]).join(' ');
};

const record = (over: Partial<CompactionRecord> = {}): CompactionRecord => ({
  id: 'c1',
  trigger: 'auto',
  status: 'applied',
  tokensBefore: 150_000,
  tokensAfter: 12_000,
  archivedCount: 120,
  preservedCount: 8,
  summaryTokens: 3_000,
  method: 'single',
  durationMs: 4_200,
  model: 'claude-sonnet-4-6',
  usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
  createdAt: 1,
  ...over,
});

const EDIT = [
  'Edited src/a.ts (+2 −1): replaced 1 occurrence',
  '--- a/src/a.ts',
  '+++ b/src/a.ts',
  '@@ -8,3 +8,4 @@',
  ' const a = 1;',
  '-const b = 2;',
  '+const b = 3;',
  '+const c = 4;',
  ' export { a };',
].join('\n');

const LONG_EDIT = [
  'Wrote src/b.ts (+12 −0): new file',
  '--- /dev/null',
  '+++ b/src/b.ts',
  '@@ -0,0 +1,12 @@',
  ...Array.from({ length: 12 }, (_, i) => `+line ${i + 1}\t${words(i + 1, i)}`),
].join('\n');

/** Named items; the names key the snapshots. */
export const ITEM_CORPUS: Record<string, TranscriptItem> = {
  'user short': { kind: 'user', id: 'u1', text: 'fix the failing test' },
  'user wrapping': { kind: 'user', id: 'u2', text: words(60) },
  'user lines, trailing space': { kind: 'user', id: 'u3', text: `first line\n\nthird ${words(5)}   \n  indented\n\n` },
  'user over 30 lines': { kind: 'user', id: 'u4', text: Array.from({ length: 34 }, (_, i) => `line ${i}`).join('\n') },
  'user attachments': { kind: 'user', id: 'u5', text: 'look at @src/cli.ts', attachments: ['src/cli.ts: read with FileRead', `src/${'deep/'.repeat(30)}x.ts: 40 lines`] },
  'user escapes': { kind: 'user', id: 'u6', text: 'a\u001b[31mred\u001b[0m\ttab\u0007bell' },
  'user wide': { kind: 'user', id: 'u7', text: `日本語のテキスト ${'漢字'.repeat(30)} done` },
  'assistant short': { kind: 'assistant', id: 'a1', text: 'Done.', interrupted: false },
  'assistant markdown': {
    kind: 'assistant',
    id: 'a2',
    text: `# Title\n\nSome **bold** and \`code\` with ${words(40)}.\n\n- one\n- two ${words(20, 3)}\n\n\`\`\`ts\nconst x = 1;\n\`\`\``,
    interrupted: false,
  },
  'assistant interrupted': { kind: 'assistant', id: 'a3', text: words(30, 2), interrupted: true },
  'assistant continued': { kind: 'assistant', id: 'a4', text: words(25, 4), interrupted: false, continued: true },
  'assistant continued empty': { kind: 'assistant', id: 'a5', text: '', interrupted: false, continued: true },
  'assistant empty interrupted': { kind: 'assistant', id: 'a6', text: '', interrupted: true },
  'tool done': { kind: 'tool', id: 't1', toolUseId: 'tu1', name: 'Bash', summary: 'npm test', status: 'done', durationMs: 2300, output: 'PASS 12 tests\nline 2\nline 3' },
  'tool one line': { kind: 'tool', id: 't2', toolUseId: 'tu2', name: 'FileRead', summary: 'src/cli.ts', status: 'done', durationMs: 12, output: '  \n  40 lines read  \n' },
  'tool error': { kind: 'tool', id: 't3', toolUseId: 'tu3', name: 'Bash', summary: 'npm run build', status: 'error', durationMs: 900, output: `Error: exit code 1 ${words(40)}` },
  'tool denied': { kind: 'tool', id: 't4', toolUseId: 'tu4', name: 'Bash', summary: 'rm -rf dist', status: 'denied', output: 'The user denied this command: use pnpm' },
  'tool interrupted': { kind: 'tool', id: 't5', toolUseId: 'tu5', name: 'Bash', summary: 'sleep 100', status: 'interrupted', durationMs: 61_000, output: '' },
  'tool no output': { kind: 'tool', id: 't6', toolUseId: 'tu6', name: 'Bash', summary: 'true', status: 'done', output: '' },
  'tool long summary': { kind: 'tool', id: 't7', toolUseId: 'tu7', name: 'Bash', summary: `echo ${words(80)}`, status: 'done', durationMs: 45, output: `${words(50)}\n${words(3)}` },
  'tool summary newlines': { kind: 'tool', id: 't8', toolUseId: 'tu8', name: 'Grep', summary: 'pattern\n  with\tspace', status: 'done', output: 'a.ts:1: x' },
  'tool cleared': { kind: 'tool', id: 't9', toolUseId: 'tu9', name: 'FileRead', summary: 'big.log', status: 'done', durationMs: 5, output: '[cleared: FileRead output archived as a_1]', clearedTokens: 12_345 },
  'tool cut for model': {
    kind: 'tool',
    id: 't10',
    toolUseId: 'tu10',
    name: 'Bash',
    summary: 'npm test',
    status: 'done',
    durationMs: 8000,
    output: 'head\n… [12,000 characters (300 lines) cut from the middle of the output] …\ntail',
    fullOutput: 'everything',
  },
  'tool cut, no full output': {
    kind: 'tool',
    id: 't11',
    toolUseId: 'tu11',
    name: 'Bash',
    summary: 'npm test',
    status: 'error',
    output: 'head\n… [1,000 characters (30 lines) cut from the middle of the output] …\ntail',
  },
  'tool edit': { kind: 'tool', id: 't12', toolUseId: 'tu12', name: 'Edit', summary: 'src/a.ts', status: 'done', durationMs: 30, output: EDIT },
  'tool write long': { kind: 'tool', id: 't13', toolUseId: 'tu13', name: 'Write', summary: 'src/b.ts', status: 'done', durationMs: 31, output: LONG_EDIT },
  'tool name escapes': { kind: 'tool', id: 't14', toolUseId: 'tu14', name: 'mcp\u001b[2J_tool', summary: 'x', status: 'done', output: 'ok' },
  'tool_output': { kind: 'tool_output', id: 'o1', name: 'Bash', summary: 'npm test', output: `${words(30)}\nsecond line\n` },
  'tool_output diff': { kind: 'tool_output', id: 'o2', name: 'Edit', summary: 'src/a.ts', output: EDIT },
  'tool_output empty': { kind: 'tool_output', id: 'o3', name: 'Bash', summary: 'true', output: '' },
  'tool_output over 2000 lines': { kind: 'tool_output', id: 'o4', name: 'Bash', summary: 'seq 2500', output: Array.from({ length: 2500 }, (_, i) => `row ${i + 1}`).join('\n') },
  checkpoint: { kind: 'checkpoint', id: 'k1', text: Array.from({ length: 9 }, (_, i) => `point ${i}: ${words(8, i)}`).join('\n') },
  'checkpoint short': { kind: 'checkpoint', id: 'k2', text: '  just this  ' },
  meta: { kind: 'meta', id: 'm1', text: `Resumed session\nwith ${words(40)}` },
  compaction: { kind: 'compaction', id: 'c1', record: record() },
  'compaction micro chunked': { kind: 'compaction', id: 'c2', record: record({ trigger: 'micro', method: 'chunked', archivedCount: 1 }) },
  'compaction manual focus': { kind: 'compaction', id: 'c3', record: record({ trigger: 'manual', focus: `the parser\n${words(20)}`, method: 'metadata' }) },
  'compaction failed': { kind: 'compaction', id: 'c4', record: record({ status: 'failed', reason: 'provider said 529 overloaded' }) },
  'compaction ineffective': { kind: 'compaction', id: 'c5', record: record({ status: 'ineffective' }) },
  'compaction skipped': { kind: 'compaction_skipped', id: 's1', trigger: 'auto', reason: `nothing old enough\nto ${words(30)}` },
  'notice info': { kind: 'notice', id: 'n1', level: 'info', text: `Model set to claude-opus-4-5 ${words(30)}` },
  'notice warning': { kind: 'notice', id: 'n2', level: 'warning', text: 'config: unknown key "x"' },
  'notice error': { kind: 'notice', id: 'n3', level: 'error', text: 'could not save\u001b]52;c;AAAA\u0007' },
  error: { kind: 'error', id: 'e1', text: `provider said 400: ${words(30)}` },
  retry: { kind: 'retry', id: 'r1', text: 'overloaded; retrying in 2s (attempt 2 of 5)' },
  'approval detail': { kind: 'approval_detail', id: 'ad1', toolName: 'Bash', summary: `npm run ${words(30)}` },
  command: { kind: 'command', id: 'cmd1', command: '/cost', output: { kind: 'text', text: `Cost so far: $0.12\n${words(20)}` } },
  'command without slash': { kind: 'command', id: 'cmd2', command: 'note', output: { kind: 'text', text: 'a\u001b[31mb\tc' } },
  'command context': {
    kind: 'command',
    id: 'cmd3',
    command: '/context',
    output: {
      kind: 'context',
      rows: [
        { label: 'System prompt', tokens: 3_200 },
        { label: 'Tools', tokens: 11_500 },
        { label: `Messages ${words(3)}`, tokens: 96_000 },
      ],
      contextWindow: 200_000,
      effectiveWindow: 180_000,
    },
  },
  'command context, no window': { kind: 'command', id: 'cmd4', command: '/context', output: { kind: 'context', rows: [{ label: 'Messages', tokens: 10 }], contextWindow: 0, effectiveWindow: 0 } },
  'command cost': {
    kind: 'command',
    id: 'cmd5',
    command: '/cost',
    output: {
      kind: 'cost',
      rows: [
        { model: 'claude-sonnet-4-6', usage: { inputTokens: 120_000, outputTokens: 8_000, cacheReadTokens: 900_000, cacheWriteTokens: 40_000 }, usd: 1.234 },
        { model: 'local-llama', usage: { inputTokens: 5_000, outputTokens: 700, cacheReadTokens: 0, cacheWriteTokens: 0 } },
      ],
    },
  },
  'command cost, total': {
    kind: 'command',
    id: 'cmd6',
    command: '/cost',
    output: { kind: 'cost', rows: [{ model: 'gpt-5', usage: { inputTokens: 1_000, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0 }, usd: 0.02 }], totalUsd: 0.02 },
  },
  'command cost, none': { kind: 'command', id: 'cmd7', command: '/cost', output: { kind: 'cost', rows: [] } },
  'command permissions': {
    kind: 'command',
    id: 'cmd8',
    command: '/permissions',
    output: { kind: 'permissions', mode: 'ask', rules: [{ source: 'config', rule: 'Bash(npm test:*)' }, { source: 'session', rule: `Bash(${words(20)})` }] },
  },
  'command permissions, none': { kind: 'command', id: 'cmd9', command: '/permissions', output: { kind: 'permissions', mode: 'acceptEdits', rules: [] } },
  'command help': {
    kind: 'command',
    id: 'cmd10',
    command: '/help',
    output: {
      kind: 'help',
      commands: [
        { name: 'resume', args: '[id]', description: 'Open another session' },
        { name: 'compact', args: '[focus…]', description: `Summarize the conversation to free context: ${words(25)}` },
        { name: 'cost', description: 'Show token usage and cost' },
      ],
    },
  },
};
