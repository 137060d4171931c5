// One .agentrc file: read as JSONC, validated against the schema with every problem named by
// its line, column and field, and merged over the files before it. config.ts resolves the
// merged settings into a Config.
import { readFileSync } from 'node:fs';
import type { Node as JsonNode } from 'jsonc-parser';
import type { z } from 'zod/mini';
import { parseJsonc, positionOf } from './jsonc.js';
import { FileConfigSchema, type FileConfig } from './schema.js';

/** A problem with configuration or flags: the CLI prints it and exits 2. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Reads and validates one .agentrc; undefined when the file does not exist. */
export function readConfigFile(file: string): FileConfig | undefined {
  const read = readRawConfig(file);
  return read === undefined ? undefined : validateConfig(file, read.json, read);
}

export interface RawConfig {
  json: Record<string, unknown>;
  text: string;
  tree: JsonNode | undefined;
}

export function readRawConfig(file: string): RawConfig | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`${file}: cannot read the file (${(e as Error).message})`);
  }
  // JSONC as editors read it: comments, trailing commas, and an empty file (no settings)
  const parsed = parseJsonc(text);
  if (!parsed.ok) {
    throw new ConfigError(`${file}: not valid JSON at ${parsed.problem}`);
  }
  const json = parsed.value;
  if (!isObject(json)) throw new ConfigError(`${file}: must hold a JSON object ({ ... })`);
  return { json, text, tree: parsed.tree };
}

/** Validates one file's settings; every problem is reported (with its line and column when the text is known), not only the first. */
export function validateConfig(file: string, raw: unknown, source?: Pick<RawConfig, 'text' | 'tree'>): FileConfig {
  const result = FileConfigSchema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      // an unknown key is found at the key itself, not at the object holding it
      const path = [...issue.path, ...(issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined ? [issue.keys[0]] : [])];
      const at = source
        ? positionOf(
            source.text,
            source.tree,
            path.map((k) => (typeof k === 'number' ? k : String(k))),
          )
        : undefined;
      return `${at ? `line ${at.line}, column ${at.column}: ` : ''}${describeIssue(issue)}`;
    });
    if (problems.length === 1) throw new ConfigError(`${file}: ${problems[0]!}`);
    throw new ConfigError(`${file}: ${problems.length} problems:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
  return result.data;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Later keys win; nested objects (models, permissions, compaction, ...) merge key by key. */
export function mergeRaw(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const prev = out[k];
    out[k] = isObject(prev) && isObject(v) ? { ...prev, ...v } : v;
  }
  return out;
}

/** The field(s) an issue is about and what is wrong; each unknown key is named on its own. */
function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const fields = issue.keys.map((k) => `"${[...path, k].join('.')}"`);
    const one = fields.length === 1;
    return `${one ? 'field' : 'fields'} ${fields.join(', ')}: unknown key${one ? '' : 's'} (see .agentrc.example for the keys)`;
  }
  if (issue.code === 'invalid_key') {
    // a record's key (a model name under "models"): the path ends in the key itself
    const key = path.pop() ?? '';
    return `field "${path.join('.')}": the key ${JSON.stringify(key)} is not valid (${issue.issues[0]?.message ?? issue.message})`;
  }
  return `${path.length > 0 ? `field "${path.join('.')}": ` : ''}${messageOf(issue)}`;
}

/** zod's message; for a value that matches none of a union's forms, what each form expected. */
function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return issue.message;
  const expected = issue.errors.map((alt) => (alt[0]?.message ?? '').replace(/^Invalid input: /, '')).filter((m) => m !== '');
  return expected.length > 0 ? `Invalid input: ${expected.join(' or ')}` : issue.message;
}
