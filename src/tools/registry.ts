import type { ToolSpec } from '../llm/provider.js';
import { redact } from '../log.js';
import { createBashTool, type BashOptions } from './bash.js';
import { createEditTool } from './edit.js';
import { createFileReadTool, type FileReadOptions } from './fileRead.js';
import { createGlobTool, type GlobOptions } from './glob.js';
import { createGrepTool, type GrepOptions } from './grep.js';
import { createRecallTool, type RecallOptions } from './recall.js';
import { toolSpec, type AnyTool, type Tool, type ToolSession } from './types.js';
import { createWriteTool } from './write.js';

export interface ToolsOptions {
  /** From the config's `bash` section. */
  bash: BashOptions;
  grep?: GrepOptions;
  fileRead?: FileReadOptions;
  glob?: GlobOptions;
  recall?: RecallOptions;
  /**
   * Applied to every tool output before it reaches the model (and so the transcript and
   * the database). Default: log.ts's redact, which removes registered API keys and
   * key-shaped strings, e.g. from the output of `env`.
   */
  redact?: (text: string) => string;
}

/**
 * The seven built-in tools: FileRead, Edit, Write, Bash, Grep, Glob, Recall (capabilities bring the
 * others: Task, MCP's), built for one session: each closes over what it uses of `session` (none of
 * it when absent: a tool list for its names, a goal's check).
 */
export function createTools(opts: ToolsOptions, session: ToolSession = {}): AnyTool[] {
  const clean = opts.redact ?? redact;
  const tools: AnyTool[] = [
    createFileReadTool(opts.fileRead, session),
    createEditTool(session),
    createWriteTool(session),
    createBashTool(opts.bash, session),
    createGrepTool(opts.grep),
    createGlobTool(opts.glob),
    createRecallTool(opts.recall, session),
  ];
  return tools.map((t) => withRedaction(t, clean));
}

function withRedaction<I>(tool: Tool<I>, clean: (text: string) => string): Tool<I> {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    kind: tool.kind,
    ...(tool.traits ? { traits: tool.traits } : {}),
    parse: (input) => tool.parse(input),
    summarize: (input) => tool.summarize(input),
    ...(tool.pathOf ? { pathOf: tool.pathOf.bind(tool) } : {}),
    ...(tool.permissionScope ? { permissionScope: tool.permissionScope.bind(tool) } : {}),
    ...(tool.sandboxPlan ? { sandboxPlan: tool.sandboxPlan.bind(tool) } : {}),
    ...(tool.preview ? { preview: tool.preview.bind(tool) } : {}),
    ...(tool.delegate ? { delegate: tool.delegate.bind(tool) } : {}),
    run: async (input, ctx, grant) => {
      // live output is cleaned too: it reaches the screen (and stream-json) as it is produced
      const progress = ctx.onProgress;
      const out = await tool.run(input, progress ? { ...ctx, onProgress: (text) => progress(clean(text)) } : ctx, grant);
      // the whole output a spill archives is cleaned like what the model sees
      return {
        content: clean(out.content),
        isError: out.isError,
        ...(out.images && out.images.length > 0 ? { images: out.images } : {}),
        ...(out.full ? { full: { ...out.full, text: clean(out.full.text) } } : {}),
        ...(out.stopTurn ? { stopTurn: true } : {}),
        ...(out.sandboxDenied ? { sandboxDenied: { command: clean(out.sandboxDenied.command), lines: out.sandboxDenied.lines.map(clean) } } : {}),
      };
    },
  };
}

/**
 * Tools that come and go with the session (MCP servers' tools): registered as the built-in ones
 * are, so their results take the same path (redaction, and whatever else every output gets).
 */
export function registerTools(tools: readonly AnyTool[], clean: (text: string) => string = redact): AnyTool[] {
  return tools.map((t) => withRedaction(t, clean));
}

export function toolByName(tools: readonly AnyTool[], name: string): AnyTool | undefined {
  return tools.find((t) => t.name === name);
}

export function toolSpecs(tools: readonly AnyTool[]): ToolSpec[] {
  return tools.map(toolSpec);
}
