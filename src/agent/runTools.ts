// The tool half of a step: each requested call parsed, previewed, authorized and run, with
// exactly one result per call whatever happens.
import type { ToolResultBlock, ToolUseBlock } from '../llm/messages.js';
import { mayChangeFiles, traitsOf } from '../tools/kinds.js';
import { fullOutputOf, shouldSpill, spillPreview } from '../tools/spill.js';
import { ToolInputError, type AnyTool, type SpillSink, type ToolContext, type ToolOutput } from '../tools/types.js';
import { errorText } from './errorText.js';
import type { AgentEvent } from '../protocol/events.js';
import type { Authorization, GateCall, LoopOptions } from './host.js';

/** What the model reads of a call the person interrupted (alone, or in brackets after its partial output). */
export const INTERRUPTED_RESULT = 'The user interrupted this tool call before it finished; it did not complete.';
const STOPPED_RESULT = 'Not run: the user denied an earlier call in this step and stopped the turn.';

/**
 * Runs the requested tools: consecutive read-only calls in parallel, consecutive calls that only
 * start something (a tool's startsAlongside: background commands) together, the rest one by one;
 * results in call order.
 */
export async function runTools(
  uses: ToolUseBlock[],
  toolsByName: Map<string, AnyTool>,
  opts: LoopOptions,
  signal: AbortSignal,
  emit: (ev: AgentEvent) => void,
): Promise<{ results: ToolResultBlock[]; stopped: boolean }> {
  const results: ToolResultBlock[] = new Array<ToolResultBlock>(uses.length);
  let stopped = false;
  let i = 0;
  while (i < uses.length) {
    if (stopped) {
      // every tool_use still gets its result, so the next request is well formed
      const use = uses[i]!;
      emit({ type: 'tool_end', id: use.id, name: use.name, output: { content: STOPPED_RESULT, isError: true }, durationMs: 0, status: 'denied' });
      results[i] = { type: 'tool_result', toolUseId: use.id, content: STOPPED_RESULT, isError: true, outcome: 'denied' };
      i++;
      continue;
    }
    const batch: number[] = [i];
    const readOnly = (n: number): boolean => {
      const tool = toolsByName.get(uses[n]!.name);
      return tool !== undefined && traitsOf(tool).readOnly;
    };
    const alongside = (n: number): boolean => {
      const tool = toolsByName.get(uses[n]!.name);
      try {
        return tool?.startsAlongside?.(tool.parse(uses[n]!.input)) === true;
      } catch {
        return false;
      }
    };
    const together = readOnly(i) ? readOnly : alongside(i) ? alongside : undefined;
    if (together) while (i + batch.length < uses.length && together(i + batch.length)) batch.push(i + batch.length);
    await Promise.all(
      batch.map(async (idx) => {
        const r = await runOneTool(uses[idx]!, toolsByName, opts, signal, emit);
        results[idx] = r.result;
        if (r.stop) stopped = true;
      }),
    );
    i += batch.length;
  }
  return { results, stopped };
}

async function runOneTool(
  use: ToolUseBlock,
  toolsByName: Map<string, AnyTool>,
  opts: LoopOptions,
  signal: AbortSignal,
  emit: (ev: AgentEvent) => void,
): Promise<{ result: ToolResultBlock; stop?: boolean }> {
  // reset once approved: the time shown is the tool's, not the wait for the person
  let started = Date.now();
  let tool = toolsByName.get(use.name);
  let summary = '';
  const finish = (raw: ToolOutput, status: 'done' | 'error' | 'denied' | 'interrupted', stop = false): { result: ToolResultBlock; stop?: boolean } => {
    const output = opts.spill ? spillIfLarge(raw, opts.spill, use, summary, tool === undefined || traitsOf(tool).spills) : raw;
    emit({ type: 'tool_end', id: use.id, name: use.name, output, durationMs: Date.now() - started, status });
    const images =
      output.images && output.images.length > 0 ? { images: output.images.map((i) => ({ type: 'image' as const, mediaType: i.mediaType, data: i.data })) } : {};
    const outcome = status === 'denied' ? { outcome: stop ? ('stopped' as const) : ('denied' as const) } : status === 'interrupted' ? { outcome: status } : {};
    return {
      result: { type: 'tool_result', toolUseId: use.id, content: output.content, isError: output.isError, ...images, ...outcome },
      ...(stop ? { stop } : {}),
    };
  };
  // what else a tool uses of the session it closes over (ToolSession)
  const ctx: ToolContext = {
    cwd: opts.cwd,
    signal,
    toolUseId: use.id,
    onProgress: (text: string): void => emit({ type: 'tool_progress', id: use.id, text }),
  };

  if (!tool) {
    emit({ type: 'tool_start', id: use.id, name: use.name, input: use.input, summary });
    const names = [...toolsByName.keys()].join(', ');
    return finish({ content: `Unknown tool "${use.name}". Available tools: ${names}.`, isError: true }, 'error');
  }
  let input: unknown;
  try {
    input = tool.parse(use.input);
    const target = tool.delegate?.(input);
    if (target) ({ tool, input } = target);
    summary = tool.summarize(input);
  } catch (e) {
    emit({ type: 'tool_start', id: use.id, name: use.name, input: use.input, summary });
    const why = e instanceof ToolInputError ? e.message : errorText(e);
    return finish({ content: `Invalid input for ${tool.name}: ${why}`, isError: true }, 'error');
  }
  emit({ type: 'tool_start', id: use.id, name: use.name, input, summary });
  if (signal.aborted) return finish({ content: INTERRUPTED_RESULT, isError: true }, 'interrupted');

  const call: GateCall = { tool, input, summary, toolUseId: use.id };
  if (tool.preview) {
    // an edit that cannot apply (not read, stale, not found) is refused before anyone is asked
    try {
      const p = await tool.preview(input, ctx);
      if (!p.ok) return finish(p.output, 'error');
      call.diff = p.change.diff;
      call.abs = p.change.file.abs;
    } catch (e) {
      return finish({ content: `${tool.name} failed: ${errorText(e)}`, isError: true }, 'error');
    }
  }

  // the project as it was before the turn's first change (checkpoints): before the hook, the approval and the run
  if (opts.gate.beforeChange && mayChangeFiles(tool)) await opts.gate.beforeChange();
  const hookCall = { name: tool.name, input, toolUseId: use.id };
  const pre = opts.hooks ? await opts.hooks.beforeTool(hookCall, signal) : {};
  if (signal.aborted) return finish({ content: INTERRUPTED_RESULT, isError: true }, 'interrupted');
  if (pre.block !== undefined)
    return finish({ content: `A PreToolUse hook blocked this call; it was not run. The hook said: ${pre.block}`, isError: true }, 'denied');

  let auth: Authorization;
  try {
    auth = await opts.gate.authorize(call, signal, pre.allow === true);
  } catch (e) {
    if (signal.aborted) return finish({ content: INTERRUPTED_RESULT, isError: true }, 'interrupted');
    auth = { ok: false, message: `Permission check failed: ${errorText(e)}` };
  }
  if (!auth.ok) return finish({ content: auth.message, isError: true }, 'denied', auth.stop === true);
  started = Date.now();

  try {
    const output = await tool.run(input, ctx, auth.sandbox ? { sandbox: auth.sandbox } : undefined);
    if (signal.aborted)
      return finish({ content: output.content ? `${output.content}\n[${INTERRUPTED_RESULT}]` : INTERRUPTED_RESULT, isError: true }, 'interrupted');
    // as Claude Code: PostToolUse hooks hear of calls that succeeded
    const note = opts.hooks && !output.isError ? await opts.hooks.afterTool(hookCall, output, signal) : undefined;
    const noted = note ? { ...output, content: `${output.content}\n\n[Note from a PostToolUse hook]\n${note}` } : output;
    return finish(noted, output.isError ? 'error' : 'done', output.stopTurn === true);
  } catch (e) {
    if (signal.aborted) return finish({ content: INTERRUPTED_RESULT, isError: true }, 'interrupted');
    return finish({ content: `${tool.name} failed: ${errorText(e)}`, isError: true }, 'error');
  }
}

/**
 * The one place every tool result passes through on its way to the model (built-in, MCP and
 * sub-agent tools alike): a result over the threshold is archived whole and replaced by its
 * preview. An archive failure leaves the result as the tool gave it.
 */
function spillIfLarge(output: ToolOutput, sink: SpillSink, use: ToolUseBlock, summary: string, spills: boolean): ToolOutput {
  const { full: given, ...rest } = output;
  const chars = given?.totalChars ?? output.content.length;
  if (!shouldSpill({ spills, chars, threshold: sink.thresholdFor(use.name) })) return rest;
  const full = given ?? fullOutputOf(output.content);
  let handle: string;
  try {
    handle = sink.archive({ toolUseId: use.id, toolName: use.name, summary, isError: output.isError, full });
  } catch (e) {
    return { ...rest, content: `${output.content}\n[the output could not be archived: ${errorText(e)}]` };
  }
  return { ...rest, content: spillPreview(full, handle), spilled: { handle, lines: full.totalLines, bytes: full.totalBytes } };
}
