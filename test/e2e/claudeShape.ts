import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// Checks a message of our stream-json against Claude Code's recorded example of the same type
// (fixtures/claude-code-stream.jsonl): every field Claude Code sends is there with the same JSON
// type, content blocks are checked against the example block of their type, and nothing extra
// appears except under agent_* names. Objects keyed by data (a tool's input, modelUsage by model
// name) are checked value by value against the example's first value.

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export const EXAMPLES: Array<Record<string, Json>> = readFileSync(join(import.meta.dirname, 'fixtures', 'claude-code-stream.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Record<string, Json>);

/** Fields of Claude Code's that say something only Claude Code can (its version, its agents list). */
const OPTIONAL = new Set(['claude_code_version', 'agents']);
/** Objects whose keys are data, not schema. */
const KEYED_BY_DATA = new Set(['modelUsage']);
/** Objects whose content is free (a tool's input). */
const FREE = new Set(['input', 'tool_input']);

const kind = (v: Json | undefined): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

export function shapeErrors(example: Json, actual: Json | undefined, path = '$'): string[] {
  // null in Claude Code's example: a field that is null or a value (stop_reason)
  if (example === null) return actual === undefined ? [`${path}: missing`] : [];
  if (kind(example) !== kind(actual)) return [`${path}: ${kind(actual)} where Claude Code sends ${kind(example)}`];
  if (Array.isArray(example) && Array.isArray(actual)) {
    return actual.flatMap((el, i) => {
      const typed = el !== null && typeof el === 'object' && !Array.isArray(el) ? el.type : undefined;
      const match = typed !== undefined ? example.find((x) => x !== null && typeof x === 'object' && !Array.isArray(x) && x.type === typed) : example[0];
      if (match === undefined) return example.length === 0 ? [] : [`${path}[${i}]: no ${String(typed)} element in Claude Code's example`];
      return shapeErrors(match, el, `${path}[${i}]`);
    });
  }
  if (typeof example === 'object' && typeof actual === 'object' && example !== null && actual !== null && !Array.isArray(example) && !Array.isArray(actual)) {
    const name = path.split('.').at(-1) ?? '';
    if (FREE.has(name)) return [];
    if (KEYED_BY_DATA.has(name)) {
      const first = Object.values(example)[0]!;
      return Object.entries(actual).flatMap(([k, v]) => shapeErrors(first, v, `${path}.${k}`));
    }
    const errors: string[] = [];
    for (const k of Object.keys(example)) if (!(k in actual) && !OPTIONAL.has(k)) errors.push(`${path}.${k}: missing`);
    for (const [k, v] of Object.entries(actual)) {
      if (k in example) errors.push(...shapeErrors(example[k]!, v, `${path}.${k}`));
      else if (!k.startsWith('agent_')) errors.push(`${path}.${k}: a field Claude Code does not send (extras go under agent_*)`);
    }
    return errors;
  }
  return [];
}

/** The example for a message: same type and subtype (results: success or the error example). */
export function exampleFor(msg: Record<string, Json>): Record<string, Json> {
  const sameType = EXAMPLES.filter((e) => e.type === msg.type);
  if (msg.type === 'result') return sameType.find((e) => e.is_error === msg.is_error)!;
  return sameType.find((e) => e.subtype === msg.subtype) ?? sameType[0]!;
}

export const validate = (msg: Record<string, Json>): string[] => shapeErrors(exampleFor(msg), msg);
