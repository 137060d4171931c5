// KillShell: the model stops one of its background commands by id (Claude Code's name and input).
import * as z from 'zod/mini';
import { parseInput, toInputSchema } from '../tools/inputSchema.js';
import { TOOL } from '../tools/toolNames.js';
import type { Tool } from '../tools/types.js';
import { promptText } from '../promptText.js';
import DESCRIPTION from './killShell.md';
import { describeState } from './record.js';
import type { Shells } from './shells.js';

const KillShellInputSchema = z.object({
  shell_id: z.string().check(z.minLength(1), z.describe('Its id (b1, b2, …).')),
});
type KillShellInput = z.infer<typeof KillShellInputSchema>;

export function createKillShellTool(shells: Shells): Tool<KillShellInput> {
  const inputSchema = toInputSchema(KillShellInputSchema);
  return {
    name: TOOL.KillShell,
    description: promptText(DESCRIPTION),
    inputSchema,
    kind: 'execute',
    parse: (input) => parseInput(TOOL.KillShell, KillShellInputSchema, inputSchema, input),
    summarize: (input) => input.shell_id,
    run: async ({ shell_id: id }) => {
      const known = shells.list().find((r) => r.id === id);
      if (!known) {
        const ids = shells.list().map((r) => `${r.id} (${describeState(r)})`);
        return {
          content: `No background command ${id}. ${ids.length > 0 ? `This session's: ${ids.join(', ')}.` : 'None was started in this session.'}`,
          isError: true,
        };
      }
      if (!(await shells.stop(id, false))) return { content: `${id} is not running (${describeState(known)}); its output: Recall id="${id}".`, isError: false };
      return { content: `Stopped ${id} (\`${known.command}\`); its output stays readable with Recall id="${id}".`, isError: false };
    },
  };
}
