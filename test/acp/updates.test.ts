import { describe, expect, it } from 'vitest';
import { acpKind } from '../../src/acp/updates.js';
import { TOOL } from '../../src/tools/toolNames.js';

// ACP's tool kinds: what the editor shows for a call (an icon, a read or an edit it may follow).

describe('acpKind', () => {
  it('names the kind of each built-in tool, and other for the rest', () => {
    // mutation: acpKind without its table says other for everything
    expect([TOOL.FileRead, TOOL.Edit, TOOL.Write, TOOL.Bash, TOOL.Grep, TOOL.Glob, TOOL.Recall, TOOL.Task].map(acpKind)).toEqual([
      'read',
      'edit',
      'edit',
      'execute',
      'search',
      'search',
      'search',
      'think',
    ]);
    expect(acpKind('mcp__github__search')).toBe('other');
    expect(acpKind(TOOL.TodoWrite)).toBe('other');
  });
});
