// What a tool is, by kind: the loop, the gate, micro compaction and the spill rule ask the kind,
// never the name. A kind gives the traits below; a tool that differs from its kind says so in
// its own `traits` (Recall is a read whose results never spill; an MCP tool that declares itself
// read-only runs as a read), so every exception is written where the tool is.
//
// - read     looks at files or the archive: no approval, runs in parallel with its neighbours.
// - edit     changes files: previewed before approval, what acceptEdits lets run.
// - execute  runs a command: asks (unless a rule allows it), one at a time.
// - agent    hands work to a sub-agent: no approval of its own (the child's tools ask), parallel.
// - mcp      an MCP server's tool: asks unless allowed (or declared read-only), one at a time.
// - fetch    reads from the network: no approval, parallel (the web tools of the next wave).

export type ToolKind = 'read' | 'edit' | 'execute' | 'agent' | 'mcp' | 'fetch';

export interface ToolTraits {
  /** Needs no approval and runs in parallel with the read-only calls next to it. */
  readOnly: boolean;
  /** Can change something outside the conversation (files, processes, a server's data): what a plan mode leaves out. */
  mutating: boolean;
  /** Changes files: previewed before approval; the permission mode acceptEdits lets it run. */
  editsFiles: boolean;
  /** Micro compaction may clear its old results. */
  compactable: boolean;
  /** A result over the spill threshold is archived whole and replaced by its preview. */
  spills: boolean;
}

const READ: ToolTraits = { readOnly: true, mutating: false, editsFiles: false, compactable: true, spills: true };

export const KIND_TRAITS: Readonly<Record<ToolKind, ToolTraits>> = {
  read: READ,
  edit: { readOnly: false, mutating: true, editsFiles: true, compactable: true, spills: true },
  execute: { readOnly: false, mutating: true, editsFiles: false, compactable: true, spills: true },
  // a report is what the parent keeps: never cleared
  agent: { readOnly: true, mutating: false, editsFiles: false, compactable: false, spills: true },
  mcp: { readOnly: false, mutating: true, editsFiles: false, compactable: true, spills: true },
  fetch: READ,
};

/** The traits of a tool: its kind's, with its own overrides. */
export function traitsOf(tool: { readonly kind: ToolKind; readonly traits?: Partial<ToolTraits> | undefined }): ToolTraits {
  const base = KIND_TRAITS[tool.kind];
  return tool.traits ? { ...base, ...tool.traits } : base;
}

/**
 * Whether a call can change the project's files, so the turn's checkpoint must be taken before
 * it: a mutating tool's (an edit, a command, an MCP tool not declared read-only), or a
 * sub-agent's (its own tools may change them, and its session keeps no checkpoints).
 */
export function mayChangeFiles(tool: { readonly kind: ToolKind; readonly traits?: Partial<ToolTraits> | undefined }): boolean {
  return traitsOf(tool).mutating || tool.kind === 'agent';
}
