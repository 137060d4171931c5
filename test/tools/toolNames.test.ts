import { describe, expect, it } from 'vitest';
import { canonicalToolName, parseToolList } from '../../src/tools/toolNames.js';

const KNOWN = ['FileRead', 'Grep', 'Glob', 'Recall', 'Bash', 'Edit', 'Write', 'Task'];

describe('tool names from other agents', () => {
  it("maps Claude Code's names to ours and keeps our own", () => {
    expect(canonicalToolName('Read', KNOWN)).toBe('FileRead');
    expect(canonicalToolName('MultiEdit', KNOWN)).toBe('Edit');
    expect(canonicalToolName('LS', KNOWN)).toBe('Glob');
    expect(canonicalToolName('Agent', KNOWN)).toBe('Task');
    expect(canonicalToolName('FileRead', KNOWN)).toBe('FileRead');
    expect(canonicalToolName('grep', KNOWN)).toBe('Grep');
    expect(canonicalToolName('WebFetch', KNOWN)).toBeUndefined();
    expect(canonicalToolName('Task', ['FileRead'])).toBeUndefined();
  });

  it('parses a comma list with rules, MCP names and unknown entries', () => {
    const parsed = parseToolList('Read, Grep, Bash(git add:*), Bash(git commit -m "a, b":*), mcp__github__*, WebFetch, Edit, MultiEdit', KNOWN);
    expect(parsed.entries).toEqual([
      { tool: 'FileRead', written: 'Read' },
      { tool: 'Grep', written: 'Grep' },
      { tool: 'Bash', rule: 'git add:*', written: 'Bash(git add:*)' },
      { tool: 'Bash', rule: 'git commit -m "a, b":*', written: 'Bash(git commit -m "a, b":*)' },
      { tool: 'mcp__github__*', written: 'mcp__github__*' },
      { tool: 'Edit', written: 'Edit' },
    ]);
    expect(parsed.unknown).toEqual(['WebFetch']);
  });

  it('takes a YAML list the same way, and refuses what is not a name', () => {
    expect(parseToolList(['Read', 'Glob'], KNOWN).entries.map((e) => e.tool)).toEqual(['FileRead', 'Glob']);
    expect(parseToolList(['Read', '(oops)', '  '], KNOWN).unknown).toEqual(['(oops)']);
  });
});
