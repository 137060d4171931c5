import { describe, expect, it } from 'vitest';
import { KIND_TRAITS, mayChangeFiles, traitsOf, type ToolKind } from '../../src/tools/kinds.js';

// A tool's traits come from its kind, with its own overrides on top. Mutations that fail it:
// an execute kind made read-only (no approval for Bash), an override ignored (Recall spilled,
// an MCP tool declared read-only asking anyway), a kind that changes things reported as not
// mutating (what a plan mode would let through).

describe('tool kinds', () => {
  it('say which kinds can change anything, ask, and edit files', () => {
    const row = (k: ToolKind) => [k, KIND_TRAITS[k].mutating, !KIND_TRAITS[k].readOnly, KIND_TRAITS[k].editsFiles];
    expect((Object.keys(KIND_TRAITS) as ToolKind[]).map(row)).toEqual([
      ['read', false, false, false],
      ['edit', true, true, true],
      ['execute', true, true, false],
      ['agent', false, false, false],
      ['mcp', true, true, false],
      ['fetch', false, false, false],
    ]);
  });

  it("apply a tool's own overrides over its kind", () => {
    expect(traitsOf({ kind: 'read', traits: { spills: false } })).toEqual({
      readOnly: true,
      mutating: false,
      editsFiles: false,
      compactable: true,
      spills: false,
    });
    expect(traitsOf({ kind: 'mcp', traits: { readOnly: true, mutating: false } })).toMatchObject({ readOnly: true, mutating: false, compactable: true });
    expect(traitsOf({ kind: 'agent' })).toMatchObject({ readOnly: true, compactable: false });
  });

  it('say which calls may change the files (a checkpoint first): a mutating one, or a sub-agent; not a read or a read-only MCP tool', () => {
    const kinds = Object.keys(KIND_TRAITS) as ToolKind[];
    expect(kinds.filter((kind) => mayChangeFiles({ kind }))).toEqual(['edit', 'execute', 'agent', 'mcp']);
    expect(mayChangeFiles({ kind: 'mcp', traits: { readOnly: true, mutating: false } })).toBe(false);
  });
  // mutation: `tool.kind !== 'agent'` in mayChangeFiles (kinds.ts) fails it
});
