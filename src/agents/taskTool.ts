// The Task tool: the model hands a task to a sub-agent and gets back its report alone.
import * as z from 'zod/mini';
import { parseInput, toInputSchema } from '../tools/inputSchema.js';
import { ToolInputError, type Tool, type ToolContext, type ToolOutput } from '../tools/types.js';
import type { AgentCatalog } from './agents.js';
import { progressLine, type ChildState } from './childState.js';
import type { ChildOutcome, SubagentHost } from './host.js';
import { capReport } from './report.js';
import { promptText } from '../promptText.js';
import DESCRIPTION from './taskTool.md';
import { TOOL } from '../tools/toolNames.js';
import { fmtInt } from '../tools/format.js';

const TaskInputSchema = z.object({
  description: z.string().check(z.minLength(1), z.describe('A 3-6 word label, shown to the user.')),
  prompt: z.string().check(z.minLength(1), z.describe('The complete task: what to find or do, and what the report should contain.')),
  agent: z.optional(z.string().check(z.minLength(1))).check(z.describe('Default "explore".')),
  keep_background: z.optional(z.boolean()).check(z.describe('Hand you the background commands it leaves running (under new ids) instead of stopping them.')),
});
export type TaskInput = z.infer<typeof TaskInputSchema>;

/**
 * The Task tool for the agents in `catalog` (listed in its description, which heads the cached
 * prefix: same catalog, same bytes), running each child through `host`.
 */
export function createTaskTool(catalog: AgentCatalog, host: SubagentHost): Tool<TaskInput> {
  const inputSchema = toInputSchema(TaskInputSchema);
  const agents = catalog
    .list()
    .map((a) => `- ${a.name}: ${a.description.replace(/\s+/g, ' ').trim()}`)
    .join('\n');
  return {
    name: TOOL.Task,
    description: promptText(DESCRIPTION, { agents }),
    inputSchema,
    // needs no approval of its own (the child's tools ask), and several run at once
    kind: 'agent',
    parse(input) {
      const parsed = parseInput(TOOL.Task, TaskInputSchema, inputSchema, input);
      if (parsed.agent !== undefined && catalog.get(parsed.agent) === undefined) {
        throw new ToolInputError(
          `Task: there is no agent "${parsed.agent}"; the agents are ${catalog
            .list()
            .map((a) => a.name)
            .join(', ')}`,
        );
      }
      return parsed;
    },
    // as the transcript's keyArgument shows a stored call: the agent only when one is named
    summarize: (input) => (input.agent ? `${input.agent}: ${input.description}` : input.description),
    run: (input, ctx) => runTask(input, ctx, catalog, host),
  };
}

async function runTask(input: TaskInput, ctx: ToolContext, catalog: AgentCatalog, host: SubagentHost): Promise<ToolOutput> {
  const agent = catalog.get(input.agent);
  if (!agent) return { content: `Task: there is no agent "${input.agent ?? ''}".`, isError: true };
  let shown = '';
  // the live row under the Task header: tools used, tokens, the latest call (the header has the clock);
  // one line rewritten in place (a carriage return, as a terminal's progress line), not a pile of near-identical ones
  const onUpdate = (s: ChildState): void => {
    const line = progressLine(s);
    if (line !== shown) ctx.onProgress?.(shown === '' ? line : `\r${line}`);
    shown = line;
  };
  const req = {
    agent,
    description: input.description,
    prompt: input.prompt,
    toolUseId: ctx.toolUseId ?? '',
    ...(input.keep_background ? { keepBackground: true } : {}),
  };
  const outcome = await host.run(req, ctx.signal, onUpdate);
  return resultOf(outcome, host.reportChars);
}

/** What the parent reads: the report and a handle to the child's transcript; a failure as an error result with what the child had said. */
export function resultOf(outcome: ChildOutcome, reportChars: number): ToolOutput {
  const s = outcome.state;
  const id = s.sessionId ?? '(not started)';
  const handle =
    `[${s.agent} agent · child session ${id} · ${s.toolCalls} tool call${s.toolCalls === 1 ? '' : 's'} · ${fmtInt(s.tokens)} tokens. ` +
    `Its full transcript: Recall, or \`agent sessions show ${id}\`.]`;
  if (outcome.ok) {
    const report = outcome.report.trim() || '(The sub-agent ended without a report.)';
    return { content: `${capReport(report, reportChars, id)}\n\n${handle}`, isError: false };
  }
  const why = { provider: 'a provider error', limit: 'a limit', cancelled: 'cancellation', internal: 'an internal error' }[outcome.reason];
  const partial = outcome.partial.trim() ? `\nWhat it had written before it stopped:\n${capReport(outcome.partial.trim(), reportChars, id)}` : '';
  return { content: `The sub-agent did not finish (${why}): ${outcome.message}${partial}\n\n${handle}`, isError: true };
}
