import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/llm/messages.js';
import { metadataSummary } from '../../src/compaction/metadata.js';
import { clearedPlaceholder } from '../../src/compaction/micro.js';
import { modifiedFiles } from '../../src/compaction/modified.js';
import { buildSummaryPrompt } from '../../src/compaction/prompt.js';
import { recentReadPaths } from '../../src/compaction/restore.js';

const m = (role: 'user' | 'assistant', blocks: Message['blocks']): Message => ({ id: `m${Math.random()}`, role, blocks, kind: 'normal', createdAt: 1 });
const history: Message[] = [
  m('user', [{ type: 'text', text: 'fix it' }]),
  m('assistant', [
    { type: 'tool_use', id: 'e1', name: 'Edit', input: { path: 'src/a.ts', old_string: 'a', new_string: 'b' } },
    { type: 'tool_use', id: 'e2', name: 'Edit', input: { path: 'src/failed.ts', old_string: 'a', new_string: 'b' } },
    { type: 'tool_use', id: 'w1', name: 'Write', input: { path: 'docs/new.md', content: 'x' } },
  ]),
  m('user', [
    { type: 'tool_result', toolUseId: 'e1', content: 'Edited src/a.ts (+1 −1)', isError: false },
    { type: 'tool_result', toolUseId: 'e2', content: 'old_string was not found', isError: true },
    { type: 'tool_result', toolUseId: 'w1', content: 'Created docs/new.md (+1 −0)', isError: false },
  ]),
];

describe('files modified in the archived span', () => {
  it('are the paths of successful Edit and Write calls', () => {
    expect(modifiedFiles(history)).toEqual(['src/a.ts', 'docs/new.md']);
  });
  it('are listed by the summary prompt and by the metadata fallback', () => {
    const prompt = buildSummaryPrompt({ transcript: 't', maxTokens: 1000, modifiedFiles: modifiedFiles(history) });
    expect(prompt).toContain('Files modified (by Edit or Write) in this part of the conversation');
    expect(prompt).toContain('- docs/new.md');
    expect(buildSummaryPrompt({ transcript: 't', maxTokens: 1000 })).not.toContain('Files modified');
    const meta = metadataSummary(history);
    expect(meta).toMatch(/## Files Modified \(Edit, Write\)\n- `src\/a\.ts`\n- `docs\/new\.md`\n/);
  });
  it('are restored after a compaction like files that were read', () => {
    expect(recentReadPaths(history, [], ['FileRead', 'Edit', 'Write'], 5)).toEqual(['docs/new.md', 'src/failed.ts', 'src/a.ts']);
  });
  it('micro compaction leaves a placeholder naming the file an edit changed', () => {
    expect(clearedPlaceholder('Edit', 'src/a.ts', 120, 'tx_1')).toContain('Edit output for `src/a.ts` cleared');
  });
});
