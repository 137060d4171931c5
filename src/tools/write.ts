import * as z from 'zod/mini';
import { fileChangeTool, loadForChange, plan, statOf, type Planned } from './fileChange.js';
import type { Tool, ToolContext, ToolSession } from './types.js';
import { promptText } from '../promptText.js';
import DESCRIPTION from './write.md';

const WriteInput = z.object({
  path: z.string().check(z.minLength(1), z.describe("The file's path.")),
  content: z.string().check(z.describe('The whole new content.')),
});
export type WriteInput = z.infer<typeof WriteInput>;

export function createWriteTool(session: ToolSession = {}): Tool<WriteInput> {
  return fileChangeTool('Write', promptText(DESCRIPTION), WriteInput, planWrite, session);
}

export async function planWrite(input: WriteInput, ctx: ToolContext, session: ToolSession): Promise<Planned> {
  const loaded = await loadForChange(input.path, ctx, session, { mustExist: false, tool: 'Write' });
  if (!loaded.ok) return loaded;
  const existed = loaded.file.existing !== undefined;
  // an existing file keeps its own line endings; a new one gets exactly what was given
  const after = existed ? input.content.replace(/\r\n/g, '\n') : input.content;
  return { ok: true, change: plan(loaded.file, after, (d) => (existed ? `Wrote ${d.path} (${statOf(d)})` : `Created ${d.path} (${statOf(d)})`)) };
}
