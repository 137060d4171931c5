// An editor's files and terminal as a capability: when the front end lends its own (an ACP
// client's buffers and terminals, editorIo.ts), every session's tools reach files and run
// commands through them — a sub-agent's too, since it opens the same capabilities.
import type { Capability, CapabilityFactory } from '../capability/capability.js';
import type { ToolIo } from '../tools/types.js';

export function editorCapability(io: ToolIo): Capability {
  return { name: 'editor', open: () => ({ io }) };
}

/** The editor's files and terminal, when the front end lends them (ACP). */
export const editor: CapabilityFactory = (ctx) => (ctx.front.io ? editorCapability(ctx.front.io) : undefined);
