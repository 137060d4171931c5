// Which MCP servers this session knows, and exactly what each would run: the project's
// .mcp.json (Claude Code's format) and `mcpServers` in .agentrc (home, then project), with
// ${VAR} and ${VAR:-default} expanded in command, args, env, url and headers. A server whose
// entry is wrong or names an unset variable is kept with its error (the others still start).
// A server from the project's own files (.mcp.json, the project's .agentrc) is `project`: it
// runs only once the person approved it (ProjectTrust, bound to a fingerprint of what runs).

import { homeDir } from '../runtime/world.js';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../config/config.js';
import { parseJsonc, positionOf } from '../config/jsonc.js';
import { McpServerSchema, type McpServerFileEntry } from '../config/schema.js';

/** What a server runs, after expansion. */
export type McpLaunch =
  | { type: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { type: 'http' | 'sse'; url: string; headers: Record<string, string> };

export interface McpServerEntry {
  name: string;
  /** The file it came from. */
  file: string;
  /** From the project's own files: runs only after approval. */
  project: boolean;
  disabled: boolean;
  /** Undefined when `error` says why it cannot run. */
  launch?: McpLaunch;
  error?: string;
  toolTimeoutMs?: number;
  maxResultChars?: number;
  /** The entry as written (before expansion): what an approval's fingerprint covers. */
  written?: unknown;
}

/** Variables whose values never go to a server (the provider keys): refusing to expand them. */
export type SecretTest = (name: string) => boolean;

/**
 * Every server of .mcp.json and the .agentrc files; a later source of the same name wins (.agentrc
 * over .mcp.json). A .mcp.json that cannot be read as a whole goes to `problems` (named by its file,
 * line and column), not into the list: no server is made of it.
 */
export function mcpServers(
  config: Pick<Config, 'cwd' | 'mcpServers'>,
  env: NodeJS.ProcessEnv,
  isSecret: SecretTest,
  home = homeDir(),
  problems: string[] = [],
  /** Servers an editor gave for the session (ACP session/new): the person's own, not a project's. */
  fromClient: ReadonlyArray<{ name: string; entry: McpServerFileEntry }> = [],
): McpServerEntry[] {
  const byName = new Map<string, McpServerEntry>();
  const mcpJson = join(config.cwd, '.mcp.json');
  const read = readMcpJson(mcpJson);
  if ('problem' in read) problems.push(`${read.problem}; its MCP servers do not start`);
  else
    for (const e of read.entries)
      byName.set(
        e.name,
        e.entry
          ? entryOf(e.name, mcpJson, true, e.entry, env, isSecret)
          : { name: e.name, file: mcpJson, project: true, disabled: false, error: e.error ?? 'invalid entry' },
      );
  const homeRc = resolve(home, '.agentrc');
  for (const s of config.mcpServers) byName.set(s.name, entryOf(s.name, s.file, resolve(s.file) !== homeRc, s.entry, env, isSecret));
  for (const s of fromClient) byName.set(s.name, entryOf(s.name, 'the editor (ACP session/new)', false, s.entry, env, isSecret));
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

interface RawEntry {
  name: string;
  entry?: McpServerFileEntry;
  error?: string;
}

/**
 * The entries of a .mcp.json (JSON as editors read it: comments and trailing commas pass); none
 * when there is no file. A file that cannot be read, is not JSON or holds no server map is a
 * problem of the file; an entry with a wrong field keeps its error, with the line and column.
 */
export function readMcpJson(file: string): { entries: RawEntry[] } | { problem: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [] };
    return { problem: `${file}: cannot read the file (${(e as Error).message})` };
  }
  const parsed = parseJsonc(text);
  if (!parsed.ok) return { problem: `${file}: not valid JSON at ${parsed.problem}` };
  const at = (path: Array<string | number>): string => {
    const p = positionOf(text, parsed.tree, path);
    return p ? `line ${p.line}, column ${p.column}: ` : '';
  };
  const servers = (parsed.value as { mcpServers?: unknown } | null)?.mcpServers;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers))
    return { problem: `${file}: ${at(['mcpServers'])}field "mcpServers" must be an object of servers by name` };
  return {
    entries: Object.entries(servers as Record<string, unknown>).map(([name, raw]) => {
      const parsedEntry = McpServerSchema.safeParse(raw);
      if (parsedEntry.success) return { name, entry: parsedEntry.data };
      const issue = parsedEntry.error.issues[0]!;
      const path = ['mcpServers', name, ...issue.path.map((k) => (typeof k === 'number' ? k : String(k)))];
      return { name, error: `${file}: ${at(path)}field "${path.join('.')}": ${issue.message}` };
    }),
  };
}

function entryOf(name: string, file: string, project: boolean, e: McpServerFileEntry, env: NodeJS.ProcessEnv, isSecret: SecretTest): McpServerEntry {
  const base: McpServerEntry = {
    name,
    file,
    project,
    disabled: e.disabled === true,
    written: e,
    ...(e.toolTimeoutMs ? { toolTimeoutMs: e.toolTimeoutMs } : {}),
    ...(e.maxResultChars ? { maxResultChars: e.maxResultChars } : {}),
  };
  const where = `MCP server "${name}" (${file})`;
  try {
    const x = (value: string, field: string): string => expandVars(value, env, isSecret, `${where}, field "${field}"`);
    const type = e.type === 'streamable-http' ? 'http' : (e.type ?? (e.url !== undefined && e.command === undefined ? 'http' : 'stdio'));
    if (type === 'stdio') {
      if (e.command === undefined) return { ...base, error: `${where}: needs "command" (or "type": "http" with "url")` };
      return {
        ...base,
        launch: {
          type: 'stdio',
          command: x(e.command, 'command'),
          args: (e.args ?? []).map((a, i) => x(a, `args[${i}]`)),
          env: Object.fromEntries(Object.entries(e.env ?? {}).map(([k, v]) => [k, x(v, `env.${k}`)])),
          ...(e.cwd ? { cwd: x(e.cwd, 'cwd') } : {}),
        },
      };
    }
    if (e.url === undefined) return { ...base, error: `${where}: type "${type}" needs "url"` };
    const url = x(e.url, 'url');
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) return { ...base, error: `${where}: field "url": "${url}" is not an http(s) URL` };
    return { ...base, launch: { type, url, headers: Object.fromEntries(Object.entries(e.headers ?? {}).map(([k, v]) => [k, x(v, `headers.${k}`)])) } };
  } catch (err) {
    if (err instanceof ExpansionError) return { ...base, error: err.message };
    throw err;
  }
}

export class ExpansionError extends Error {
  override readonly name = 'ExpansionError';
}

/**
 * `${VAR}` and `${VAR:-default}` (the default used when VAR is unset or empty), as Claude Code
 * expands .mcp.json. An unset variable without a default, or a provider key, is an error naming
 * the variable and where it was.
 */
export function expandVars(value: string, env: NodeJS.ProcessEnv, isSecret: SecretTest, where: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, fallback: string | undefined) => {
    if (isSecret(name)) throw new ExpansionError(`${where}: \${${name}} holds an API key of this program, which is never passed to MCP servers`);
    const v = env[name];
    if (v !== undefined && v !== '') return v;
    if (fallback !== undefined) return fallback;
    throw new ExpansionError(`${where}: the environment variable ${name} is not set (write \${${name}:-default} for a default)`);
  });
}

/**
 * The variables an entry passes to its server through env or headers (tokens, typically): their
 * values are redacted from what the server returns, as the provider keys are.
 */
export function passedVars(e: McpServerEntry): string[] {
  const w = (e.written ?? {}) as { env?: Record<string, string>; headers?: Record<string, string> };
  const values = [...Object.values(w.env ?? {}), ...Object.values(w.headers ?? {})];
  return [...new Set(values.flatMap((v) => [...v.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!)))];
}

/** What the trust fingerprint covers: the entry as written (a rotated token in ${VAR} does not ask again; an edited command does). */
export const trustedPart = (e: McpServerEntry): unknown => e.written ?? { error: e.error };

/** The environment a stdio server starts with: the few variables a program needs to run, plus its configured env. */
export const BASE_ENV_VARS = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'LC_ALL', 'TMPDIR', 'SYSTEMROOT', 'APPDATA'] as const;

export function serverEnv(launchEnv: Record<string, string>, env: NodeJS.ProcessEnv, isSecret: SecretTest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of BASE_ENV_VARS) {
    const v = env[name];
    if (v !== undefined && !v.startsWith('()') && !isSecret(name)) out[name] = v;
  }
  return { ...out, ...launchEnv };
}

/** The transport an entry that could not be read names (for /mcp). */
export function writtenTransport(written: unknown): 'stdio' | 'http' | 'sse' | '?' {
  const w = (written ?? {}) as { type?: unknown; url?: unknown; command?: unknown };
  if (w.type === 'sse') return 'sse';
  if (w.type === 'http' || w.type === 'streamable-http' || (w.url !== undefined && w.command === undefined)) return 'http';
  return w.command !== undefined ? 'stdio' : '?';
}

/** What a server would run, for the approval prompt. */
export function describeLaunch(entry: McpServerEntry): string {
  const l = entry.launch;
  if (!l) return entry.error ?? '?';
  if (l.type !== 'stdio') return `${l.type} ${l.url}`;
  const env = Object.keys(l.env);
  return `${[l.command, ...l.args].join(' ')}${env.length > 0 ? ` (env: ${env.join(', ')})` : ''}${l.cwd ? ` in ${l.cwd}` : ''}`;
}
