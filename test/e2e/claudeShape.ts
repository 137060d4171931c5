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

/** Fields of Claude Code's that say something only Claude Code can (its version, its agents list), or only sometimes (a status's compact_result, once the compaction ended). */
const OPTIONAL = new Set(['claude_code_version', 'agents', 'compact_result']);
/** Objects whose keys are data, not schema. */
const KEYED_BY_DATA = new Set(['modelUsage']);
/** Objects whose content is free (a tool's input). */
const FREE = new Set(['input', 'tool_input']);

const kind = (v: Json | undefined): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

export function shapeErrors(example: Json, actual: Json | undefined, path = '$', optional: ReadonlySet<string> = OPTIONAL): string[] {
  // null in Claude Code's example: a field that is null or a value (stop_reason)
  if (example === null) return actual === undefined ? [`${path}: missing`] : [];
  if (kind(example) !== kind(actual)) return [`${path}: ${kind(actual)} where Claude Code sends ${kind(example)}`];
  if (Array.isArray(example) && Array.isArray(actual)) {
    return actual.flatMap((el, i) => {
      const typed = el !== null && typeof el === 'object' && !Array.isArray(el) ? el.type : undefined;
      const match = typed !== undefined ? example.find((x) => x !== null && typeof x === 'object' && !Array.isArray(x) && x.type === typed) : example[0];
      if (match === undefined) return example.length === 0 ? [] : [`${path}[${i}]: no ${String(typed)} element in Claude Code's example`];
      return shapeErrors(match, el, `${path}[${i}]`, optional);
    });
  }
  if (typeof example === 'object' && typeof actual === 'object' && example !== null && actual !== null && !Array.isArray(example) && !Array.isArray(actual)) {
    const name = (path.split('.').at(-1) ?? '').replace(/\[\d+\]$/, '');
    if (FREE.has(name)) return [];
    if (KEYED_BY_DATA.has(name)) {
      const first = Object.values(example)[0]!;
      return Object.entries(actual).flatMap(([k, v]) => shapeErrors(first, v, `${path}.${k}`, optional));
    }
    const errors: string[] = [];
    for (const k of Object.keys(example)) if (!(k in actual) && !optional.has(k) && !optional.has(`${name}.${k}`)) errors.push(`${path}.${k}: missing`);
    for (const [k, v] of Object.entries(actual)) {
      if (k in example) errors.push(...shapeErrors(example[k]!, v, `${path}.${k}`, optional));
      else if (!k.startsWith('agent_') && !optional.has(k) && !optional.has(`${name}.${k}`))
        errors.push(`${path}.${k}: a field Claude Code does not send (extras go under agent_*)`);
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

// Claude Code's own output, recorded (fixtures/claude-code-2.1.197/record.sh runs `claude -p
// --output-format stream-json --verbose` against the fake provider: a tool turn, the same turn
// with --include-partial-messages, /compact), volatile values normalized. Every message type
// recorded becomes one example, the union of its recorded instances (an assistant message per
// content block in Claude Code: their blocks together).

const RECORDED_DIR = join(import.meta.dirname, 'fixtures', 'claude-code-2.1.197');
export const RECORDED: Array<Record<string, Json>> = ['tool', 'partial', 'compact'].flatMap((f) =>
  readFileSync(join(RECORDED_DIR, `${f}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, Json>),
);

/** A message's kind: its type, subtype, and for a stream event the event's type and delta's type. */
export function recordedKind(m: Record<string, Json>): string {
  const event = m.event as { type?: string; delta?: { type?: string }; content_block?: { type?: string } } | undefined;
  return [m.type, m.subtype, event?.type, event?.delta?.type, event?.content_block?.type].filter((x) => typeof x === 'string').join('/');
}

const isObject = (v: Json | undefined): v is { [k: string]: Json } => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Two instances as one example: objects' keys together, arrays' elements of each block type once. */
function merge(a: Json, b: Json): Json {
  if (isObject(a) && isObject(b)) {
    const out: { [k: string]: Json } = { ...a };
    // a scalar recorded both null and set (a status set, then cleared) is null in the union: either may come
    const either = (x: Json, y: Json): boolean => (x === null && y !== null && typeof y !== 'object') || (y === null && x !== null && typeof x !== 'object');
    for (const [k, v] of Object.entries(b)) out[k] = k in a && either(a[k]!, v) ? null : k in a && a[k] !== null ? (v === null ? a[k]! : merge(a[k]!, v)) : v;
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const typeOf = (x: Json): Json | undefined => (isObject(x) ? x.type : undefined);
    return [...a, ...b.filter((x) => typeOf(x) === undefined || !a.some((y) => typeOf(y) === typeOf(x)))];
  }
  return a;
}

export const RECORDED_EXAMPLES = new Map<string, Json>();
for (const m of RECORDED) {
  const k = recordedKind(m);
  const seen = RECORDED_EXAMPLES.get(k);
  RECORDED_EXAMPLES.set(k, seen === undefined ? m : merge(seen, m));
}

/**
 * What Claude Code 2.1.197 sends that only it can say, and this project leaves out: its own
 * settings and telemetry (analytics, memory paths, fast mode), the API's request id and time to
 * first token, its structured tool result (tool_use_result, per tool of its own), the replay
 * flags of its transcript, its compaction's segment bookkeeping. `parent.key` names a field in
 * one object only. The API's own usage fields, which Claude Code passes on as the API sends them
 * (service_tier, inference_geo, iterations, speed), may be there or not.
 */
export const CLAUDE_CODE_ONLY = new Set([
  ...OPTIONAL,
  'analytics_disabled',
  'product_feedback_disabled',
  'memory_paths',
  'fast_mode_state',
  'request_id',
  'context_management',
  'tool_use_result',
  'timestamp',
  'api_error_status',
  'terminal_reason',
  'time_to_request_ms',
  'ttft_ms',
  'ttft_stream_ms',
  // a successful tool result without is_error (this project always says it, as the published types do)
  'content.is_error',
  'isReplay',
  'isSynthetic',
  'output_tokens_details',
  'service_tier',
  'inference_geo',
  'iterations',
  'speed',
  'compact_metadata.cumulative_dropped_tokens',
  'compact_metadata.duration_ms',
  'compact_metadata.preserved_segment',
  'compact_metadata.preserved_messages',
]);

/** A message of ours against Claude Code's recorded message of the same kind (undefined: none recorded of that kind). */
export function validateRecorded(msg: Record<string, Json>): string[] | undefined {
  const example = RECORDED_EXAMPLES.get(recordedKind(msg));
  return example === undefined ? undefined : shapeErrors(example, msg, '$', CLAUDE_CODE_ONLY);
}
