// Tool input schemas: one zod object per tool gives both the JSON schema sent to the
// model and the validation of what the model sends back. zod/mini's functional API
// (z.optional(x), x.check(z.minLength(1), z.describe('...'))), imported as a namespace
// (`import * as z`) so the bundle keeps only what the schemas use (docs/build.md).
import * as z from 'zod/mini';
import '../zodEnglish.js';
import type { JsonSchema } from '../llm/provider.js';
import { ToolInputError } from './types.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The JSON schemas made, by their zod schema: every tool is built again for every session (and
 * every in-process run of the tests), from the same module-level zod objects, and zod's
 * conversion was a tenth of a runtime's construction. Frozen, as they are shared.
 */
const made = new WeakMap<z.ZodMiniObject, JsonSchema>();

/** zod → JSON schema, without `$schema` and without the ±2^53 bounds zod adds to integers; made once per zod schema, and frozen. */
export function toInputSchema(schema: z.ZodMiniObject): JsonSchema {
  const known = made.get(schema);
  if (known) return known;
  const cleaned = clean(z.toJSONSchema(schema, { io: 'input' }));
  if (!isRecord(cleaned) || cleaned['type'] !== 'object') throw new Error('a tool input schema must be an object schema');
  const frozen = deepFreeze(cleaned) as JsonSchema;
  made.set(schema, frozen);
  return frozen;
}

function deepFreeze(node: unknown): unknown {
  if (typeof node === 'object' && node !== null) for (const v of Object.values(node)) deepFreeze(v);
  return Object.freeze(node);
}

function clean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(clean);
  if (!isRecord(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$schema') continue;
    if ((k === 'minimum' || k === 'maximum') && typeof v === 'number' && Math.abs(v) >= Number.MAX_SAFE_INTEGER) continue;
    out[k] = clean(v);
  }
  return out;
}

/**
 * Validates raw model input. Models sometimes send numbers and booleans as strings
 * ("10", "true"); those are converted where the schema expects a number or a boolean.
 * Throws ToolInputError naming the bad field.
 */
export function parseInput<S extends z.ZodMiniObject>(toolName: string, schema: S, jsonSchema: JsonSchema, input: unknown): z.infer<S> {
  if (!isRecord(input)) throw new ToolInputError(`${toolName}: the input must be a JSON object`);
  const coerced: Record<string, unknown> = { ...input };
  const props = jsonSchema.properties ?? {};
  for (const [key, value] of Object.entries(coerced)) {
    const prop = props[key];
    if (typeof value !== 'string' || !isRecord(prop)) continue;
    const type = prop['type'];
    if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(value.trim())) coerced[key] = Number(value.trim());
    else if (type === 'boolean' && (value === 'true' || value === 'false')) coerced[key] = value === 'true';
  }
  const result = schema.safeParse(coerced);
  if (result.success) return result.data;
  const messages = result.error.issues.map((issue) => {
    const field = issue.path.map(String).join('.');
    if (field === '') return issue.message;
    if (issue.code === 'invalid_type' && coerced[field] === undefined) return `missing required field "${field}"`;
    return `"${field}": ${issue.message} (got ${JSON.stringify(coerced[issue.path[0] as string]) ?? 'undefined'})`;
  });
  throw new ToolInputError(`${toolName}: invalid input: ${messages.join('; ')}`);
}
