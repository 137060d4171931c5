// Context economy: when the definitions of all MCP tools would cost more than a threshold, the
// model gets instead a catalog (each tool's name and one line of its description) and two
// tools: McpSchemas loads the full definitions of the tools it picks, McpCall calls one by
// name. The catalog is built only from the tool list, sorted, so the definitions stay byte for
// byte the same across turns and the provider's cached prefix holds; the schemas the model
// loads land in the history, after the cached prefix, not in the tool list.

import { ToolInputError, type AnyTool } from '../tools/types.js';
import { promptText } from '../promptText.js';
import CALL_DESCRIPTION from './callTool.md';
import SCHEMAS_DESCRIPTION from './schemasTool.md';
import { TOOL } from '../tools/toolNames.js';

export const SCHEMAS_TOOL = TOOL.McpSchemas;
export const CALL_TOOL = TOOL.McpCall;
/** One catalog line's description at most. */
const LINE_CHARS = 90;

/** The first sentence (or line) of a description, capped. */
export function oneLine(description: string): string {
  const line = (description.split('\n').find((l) => l.trim() !== '') ?? '').trim();
  const m = /^(.*?[.!?])(\s|$)/.exec(line);
  const first = (m ? m[1] : line) ?? '';
  return first.length > LINE_CHARS ? `${first.slice(0, LINE_CHARS - 1)}…` : first;
}

/** The catalog: tool names grouped by server prefix, each with its one line. */
export function catalog(tools: readonly AnyTool[]): string {
  return tools.map((t) => `${t.name}: ${oneLine(t.description)}`).join('\n');
}

const definition = (t: AnyTool): string => JSON.stringify({ name: t.name, description: t.description, input_schema: t.inputSchema });

/** The two tools that stand for `tools` (all MCP tools, sorted by name). */
export function deferredTools(tools: readonly AnyTool[]): AnyTool[] {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const schemas: AnyTool = {
    name: SCHEMAS_TOOL,
    description: promptText(SCHEMAS_DESCRIPTION, { callTool: CALL_TOOL, tools: catalog(tools) }),
    inputSchema: {
      type: 'object',
      properties: { tools: { type: 'array', items: { type: 'string' }, description: 'Names of tools from the list, e.g. ["mcp__github__create_issue"]' } },
      required: ['tools'],
    },
    kind: 'mcp',
    // only reads definitions
    traits: { readOnly: true, mutating: false },
    parse: (input) => {
      const names = (input as { tools?: unknown } | null)?.tools;
      if (!Array.isArray(names) || names.some((n) => typeof n !== 'string') || names.length === 0)
        throw new ToolInputError('"tools" must be a non-empty list of tool names');
      return names as string[];
    },
    summarize: (names) => (names as string[]).join(', '),
    run: async (names) => {
      const list = names as string[];
      const found = list.filter((n) => byName.has(n)).map((n) => definition(byName.get(n)!));
      const missing = list.filter((n) => !byName.has(n));
      const parts = [...found];
      if (missing.length > 0) parts.push(`Unknown: ${missing.join(', ')}. The MCP tools are: ${[...byName.keys()].join(', ')}`);
      return { content: parts.join('\n'), isError: found.length === 0 };
    },
  };
  const call: AnyTool = {
    name: CALL_TOOL,
    description: promptText(CALL_DESCRIPTION, { schemasTool: SCHEMAS_TOOL }),
    inputSchema: {
      type: 'object',
      properties: {
        tool: { type: 'string', description: 'The tool name, e.g. mcp__github__create_issue' },
        arguments: { type: 'object', description: "The tool's arguments, as its input schema says" },
      },
      required: ['tool'],
    },
    // what runs is its delegate, authorized as itself
    kind: 'mcp',
    parse: (input) => {
      const i = (input ?? {}) as { tool?: unknown; arguments?: unknown };
      if (typeof i.tool !== 'string' || i.tool === '') throw new ToolInputError('"tool" must be the name of an MCP tool');
      if (i.arguments !== undefined && (typeof i.arguments !== 'object' || i.arguments === null || Array.isArray(i.arguments)))
        throw new ToolInputError('"arguments" must be an object');
      if (!byName.has(i.tool)) throw new ToolInputError(`no MCP tool is named "${i.tool}"; the MCP tools are: ${[...byName.keys()].join(', ')}`);
      return { tool: i.tool, arguments: (i.arguments ?? {}) as Record<string, unknown> };
    },
    summarize: (input) => (input as { tool: string }).tool,
    delegate: (input) => {
      const i = input as { tool: string; arguments: Record<string, unknown> };
      const target = byName.get(i.tool)!;
      return { tool: target, input: target.parse(i.arguments) };
    },
    run: async () => ({ content: `${CALL_TOOL} runs through the tool it names`, isError: true }),
  };
  return [schemas, call];
}
