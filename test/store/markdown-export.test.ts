import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/llm/messages.js';
import { fenced, nestHeadings, sessionMarkdown } from '../../src/markdownExport.js';
import type { SessionInfo, TranscriptEntry } from '../../src/store/index.js';
import { fullOutputOf, spillPreview } from '../../src/tools/spill.js';

let t = 1_700_000_000_000;
const m = (role: Message['role'], blocks: Message['blocks'], extra: Partial<Message> = {}): Message => ({
  id: `m${t}`,
  role,
  blocks,
  kind: 'normal',
  createdAt: (t += 1000),
  ...extra,
});
const e = (message: Message, archivedBy: string | null = null): TranscriptEntry => ({ message, archivedBy });

const info = { id: 's_1', title: 'Fix the parser', provider: 'anthropic', model: 'claude-sonnet-4-5', cwd: '/w' } as SessionInfo;

describe('Markdown export', () => {
  it('fences tool calls and outputs, heads tool results apart from the user, nests checkpoint headings, keeps archived messages in place, ends with a newline', () => {
    const q = e(m('user', [{ type: 'text', text: 'why does the parser fail?' }]), 'c_1');
    const call = e(
      m('assistant', [
        { type: 'text', text: 'Let me run it.' },
        { type: 'tool_use', id: 'tu1', name: 'Bash', input: { command: 'npm test' } },
      ]),
      'c_1',
    );
    const result = e(m('user', [{ type: 'tool_result', toolUseId: 'tu1', content: 'FAIL parser.test.ts\n```weird fence```', isError: true }]), 'c_1');
    const kept = e(m('user', [{ type: 'text', text: 'and now?' }]));
    const answer = e(m('assistant', [{ type: 'text', text: '## Cause\nA missing semicolon.' }]));
    // the checkpoint is stored after the tail it was made with
    const checkpoint = e(
      m('user', [{ type: 'text', text: '[Context checkpoint — compaction c_1]\nThe earlier part…\n\n---\n\n## Goal\nFix the parser.' }], {
        kind: 'checkpoint',
      }),
    );
    const md = sessionMarkdown(info, [q, call, result, kept, answer, checkpoint]);

    expect(md.endsWith('\n')).toBe(true);
    expect(md.endsWith('\n\n')).toBe(false);
    expect(md).toContain('> **Tool call** `Bash` (tu1)');
    expect(md).toContain('> ```json');
    expect(md).toMatch(/### Tool results \(archived by compaction c_1\)/);
    expect(md).not.toMatch(/## User[^\n]*\n\n> \*\*Bash result/);
    expect(md).toContain('> ````\n> FAIL parser.test.ts\n> ```weird fence```\n> ````');
    // checkpoint right after what it archived, before the kept tail; its headings nested
    const order = ['why does the parser fail?', 'Bash result', '## Checkpoint', 'and now?', 'A missing semicolon.'].map((s) => md.indexOf(s));
    expect(order.every((v, i) => v >= 0 && (i === 0 || v > order[i - 1]!))).toBe(true);
    expect(md).toContain('#### Goal');
    expect(md).toContain('#### Cause');
    expect(md).toMatch(/## User \(archived by compaction c_1\)/);
  });

  it('marks a spilled output and prints it whole after its preview', () => {
    const preview = spillPreview(fullOutputOf(Array.from({ length: 500 }, (_, i) => `row ${i + 1}`).join('\n')), 'o3');
    const call = e(m('assistant', [{ type: 'tool_use', id: 'tu7', name: 'Bash', input: { command: 'seq' } }]));
    const result = e(m('user', [{ type: 'tool_result', toolUseId: 'tu7', content: preview, isError: false }]));
    const whole = Array.from({ length: 500 }, (_, i) => `row ${i + 1}`).join('\n');
    const md = sessionMarkdown(info, [call, result], (h) => (h === 'o3' ? whole : undefined));
    expect(md).toContain('**Bash result** (tu7, spilled to the archive as o3)');
    expect(md).toContain(`The whole output (o3):\n\n\`\`\`\n${whole}\n\`\`\``);
    expect(sessionMarkdown(info, [call, result])).not.toContain('The whole output');
  });

  it('fences and nests safely', () => {
    expect(fenced('a ``` b')).toBe('````\na ``` b\n````');
    expect(nestHeadings('# A\n```\n# not a heading\n```\n###### deep', 2)).toBe('### A\n```\n# not a heading\n```\n###### deep');
  });
});
