// MCP tools as this program's tools: their names (mcp__<server>__<tool>, within OpenAI's 64
// characters), their input schemas (checked: one a provider would refuse is skipped with a
// warning instead of breaking every request), and their results as text the model reads.

import { createHash } from 'node:crypto';
import type { JsonSchema } from '../llm/provider.js';
import { fullOutputOf } from '../tools/spill.js';
import { ToolInputError, type AnyTool, type ToolOutput } from '../tools/types.js';
import type { McpCallResult, McpTool } from './connection.js';
import { IMAGE_MEDIA_TYPES } from '../media/limits.js';
import { prepareToolImages } from '../media/prepare.js';
import { fmtInt } from '../tools/format.js';

/** OpenAI's limit on function names (Anthropic allows 128). */
export const MAX_TOOL_NAME = 64;
/** A tool description longer than this is cut (some servers put manuals there). */
export const MAX_DESCRIPTION_CHARS = 2_000;

const clean = (s: string): string => s.replace(/[^A-Za-z0-9_-]/g, '_');

/** mcp__<server>__<tool>, characters outside [A-Za-z0-9_-] replaced; a longer name is cut and given a short hash of the full one. */
export function mcpToolName(server: string, tool: string): string {
  const full = `mcp__${clean(server)}__${clean(tool)}`;
  if (full.length <= MAX_TOOL_NAME) return full;
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
  return `${full.slice(0, MAX_TOOL_NAME - 9)}_${hash}`;
}

/** Why a server's input schema cannot be sent to a provider, or undefined when it can. */
export function schemaProblem(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return 'its input schema is not an object';
  const s = schema as Record<string, unknown>;
  if (s['type'] !== 'object') return `its input schema has type ${JSON.stringify(s['type'])}, and tools take an object`;
  const props = s['properties'];
  if (props !== undefined && (typeof props !== 'object' || props === null || Array.isArray(props))) return 'its input schema\'s "properties" is not an object';
  if (props && Object.values(props).some((p) => typeof p !== 'object' || p === null || Array.isArray(p)))
    return 'a property of its input schema is not a schema object';
  const req = s['required'];
  if (req !== undefined && (!Array.isArray(req) || req.some((r) => typeof r !== 'string'))) return 'its input schema\'s "required" is not a list of names';
  try {
    JSON.stringify(schema);
  } catch {
    return 'its input schema cannot be written as JSON';
  }
  return undefined;
}

/** The schema as sent: without `$schema` (a URL the model does not need), keys otherwise as the server wrote them. */
export function sentSchema(schema: Record<string, unknown>): JsonSchema {
  const { $schema: _drop, ...rest } = schema;
  return { ...rest, type: 'object' };
}

export interface ToolRunner {
  /** `onProgress`: the server's progress notifications for this call, one line each, as they come. */
  call(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal, onProgress?: (text: string) => void): Promise<ToolOutput>;
}

export interface BuiltTools {
  tools: AnyTool[];
  warnings: string[];
}

/** The server's tools as this program's; invalid ones are left out with a warning naming server and tool. */
export function buildTools(server: string, list: readonly McpTool[], runner: ToolRunner, allowReadOnly: boolean): BuiltTools {
  const tools: AnyTool[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  for (const t of list) {
    const problem = schemaProblem(t.inputSchema);
    if (problem) {
      warnings.push(`MCP server "${server}": tool "${t.name}" skipped: ${problem}`);
      continue;
    }
    const name = mcpToolName(server, t.name);
    if (seen.has(name)) {
      warnings.push(`MCP server "${server}": tool "${t.name}" skipped: its name collides with another as ${name}`);
      continue;
    }
    seen.add(name);
    tools.push(mcpTool(server, t, name, runner, allowReadOnly));
  }
  return { tools, warnings };
}

function mcpTool(server: string, t: McpTool, name: string, runner: ToolRunner, allowReadOnly: boolean): AnyTool {
  const description = capDescription(t.description ?? t.title ?? `Tool ${t.name} of the MCP server ${server}.`);
  return {
    name,
    description,
    inputSchema: sentSchema(t.inputSchema as Record<string, unknown>),
    kind: 'mcp',
    ...(allowReadOnly && t.annotations?.readOnlyHint === true ? { traits: { readOnly: true, mutating: false } } : {}),
    parse: (input) => {
      if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ToolInputError('the input must be an object');
      return input;
    },
    summarize: (input) => {
      const text = JSON.stringify(input) ?? '';
      return `${server}: ${t.name} ${text.length > 120 ? `${text.slice(0, 119)}…` : text}`;
    },
    run: (input, ctx) => runner.call(server, t.name, input as Record<string, unknown>, ctx.signal, ctx.onProgress),
  };
}

const capDescription = (d: string): string => (d.length > MAX_DESCRIPTION_CHARS ? `${d.slice(0, MAX_DESCRIPTION_CHARS - 1)}…` : d);

/** The image types both providers read; an image larger than this (base64) is not decoded (media/prepare.ts downscales the others). */
const IMAGE_TYPES = IMAGE_MEDIA_TYPES;
const MAX_IMAGE_BASE64 = 64 * 1024 * 1024;

const kb = (base64: string): string => `${Math.max(1, Math.round((base64.length * 3) / 4 / 1024))} KB`;

/**
 * A result as the model reads it: text as is, a resource link or embedded resource as a line
 * naming it, an image or audio as a line saying what it was, structuredContent as JSON text
 * (unless a text block already holds it), isError as an error result. Over `maxChars`, the head
 * is kept and a line says how much was cut and why.
 */
export function resultText(server: string, tool: string, r: McpCallResult, maxChars: number): ToolOutput {
  const parts: string[] = [];
  const images: { mediaType: string; data: string }[] = [];
  for (const c of r.content ?? []) {
    if (c.type === 'text') parts.push(c.text);
    else if (c.type === 'image' && IMAGE_TYPES.has(c.mimeType) && c.data.length <= MAX_IMAGE_BASE64) {
      images.push({ mediaType: c.mimeType, data: c.data });
      parts.push(`[image ${c.mimeType}, ${kb(c.data)}]`);
    } else if (c.type === 'image')
      parts.push(
        `[image ${c.mimeType}, ${kb(c.data)}: not shown to the model (${IMAGE_TYPES.has(c.mimeType) ? 'over 48 MB' : 'a type the providers do not read'})]`,
      );
    else if (c.type === 'audio') parts.push(`[audio ${c.mimeType}, ${kb(c.data)}: not shown to the model]`);
    else if (c.type === 'resource_link')
      parts.push(`[resource link] ${c.name}: ${c.uri}${c.mimeType ? ` (${c.mimeType})` : ''}${c.description ? ` — ${c.description}` : ''}`);
    else if (c.type === 'resource') {
      const res = c.resource;
      parts.push(
        'text' in res && typeof res.text === 'string'
          ? `[resource ${res.uri}]\n${res.text}`
          : `[resource ${res.uri}${res.mimeType ? ` (${res.mimeType})` : ''}: binary, not shown]`,
      );
    }
  }
  if (r.structuredContent !== undefined) {
    const json = JSON.stringify(r.structuredContent);
    if (!parts.some((p) => p.trim() === json || safeEqualJson(p, r.structuredContent))) parts.push(json);
  }
  let text = parts.join('\n');
  if (text === '') text = r.isError ? `The MCP tool ${tool} of server "${server}" failed without saying why.` : '(no output)';
  // over the cap the model's copy is cut, and the whole goes along for the spill rule to archive
  // (tools/spill.ts: the model then gets a head-and-tail preview and a handle Recall reads)
  const whole = text.length > maxChars ? fullOutputOf(text) : undefined;
  if (whole) {
    const cut = text.length - maxChars;
    text =
      `${text.slice(0, maxChars)}\n[… ${fmtInt(cut)} more characters cut: results of MCP server "${server}" ` +
      `are capped at ${fmtInt(maxChars)} characters (mcp.maxResultChars, or its own maxResultChars). ` +
      `Ask the tool for less, e.g. a narrower query or a page.]`;
  }
  return { content: text, isError: r.isError === true, ...(images.length > 0 ? { images } : {}), ...(whole ? { full: whole } : {}) };
}

/** A result's images made ready as an image file's are (downscaled, a corrupt one left out and said so). */
export async function withPreparedImages(out: ToolOutput, tool: string): Promise<ToolOutput> {
  if (!out.images || out.images.length === 0) return out;
  const { images, notes } = await prepareToolImages(out.images, tool);
  const { images: _given, ...rest } = out;
  return { ...rest, content: [out.content, ...notes].join('\n'), ...(images.length > 0 ? { images } : {}) };
}

function safeEqualJson(text: string, value: unknown): boolean {
  const t = text.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) return false;
  try {
    return JSON.stringify(JSON.parse(t)) === JSON.stringify(value);
  } catch {
    return false;
  }
}
