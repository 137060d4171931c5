// The sandbox's settings, read as Claude Code reads them: `sandbox` in ~/.claude/settings.json and
// in the project's .claude/settings.json and .claude/settings.local.json, plus the same keys in
// ~/.agentrc and the project's .agentrc. The person's own files (home) set it; a project's files
// may only narrow it (turn it on, refuse more, deny more paths and domains): what would widen it
// (turn it off, auto-allow, escapes, more writable paths, domains or excluded commands) is ignored
// with a warning naming the file and the field, since a cloned repository must not open its own
// sandbox. A `sandbox` that does not fit the schema is an error naming the file and the field:
// ignoring it could leave a narrowing unread. Claude Code's other sandbox keys are its business.
import { homeDir } from '../runtime/world.js';
import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import * as z from 'zod/mini';
import { ConfigError, readRawConfig, validateConfig } from './configFile.js';
import { parseJsonc } from './jsonc.js';
import { SandboxFileSchema, type SandboxFileConfig } from './sandboxSchema.js';

/** The sandbox in force (Config.sandbox; absent there: off): every field resolved, paths absolute. */
export interface SandboxSettings {
  enabled: boolean;
  autoAllowBashIfSandboxed: boolean;
  allowUnsandboxedCommands: boolean;
  failIfUnavailable: boolean;
  excludedCommands: string[];
  allowWrite: string[];
  denyWrite: string[];
  denyRead: string[];
  allowedDomains: string[];
  deniedDomains: string[];
  /** The files that set something, in the order read. */
  sources: string[];
}

/** The settings when no file sets anything (off), with lists of their own to add to. */
export function freshDefaults(): SandboxSettings {
  return {
    enabled: false,
    autoAllowBashIfSandboxed: true,
    allowUnsandboxedCommands: true,
    failIfUnavailable: false,
    excludedCommands: [],
    allowWrite: [],
    denyWrite: [],
    denyRead: [],
    allowedDomains: [],
    deniedDomains: [],
    sources: [],
  };
}

const KEYS = ['enabled', 'autoAllowBashIfSandboxed', 'allowUnsandboxedCommands', 'failIfUnavailable', 'excludedCommands'] as const;
const FS_KEYS = ['allowWrite', 'denyWrite', 'denyRead'] as const;
const NET_KEYS = ['allowedDomains', 'deniedDomains'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const pick = (o: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([k]) => keys.includes(k)));

/** A Claude Code settings file's `sandbox`, with only the keys this program reads (the others are Claude Code's). */
function claudeSandbox(file: string): SandboxFileConfig | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const parsed = parseJsonc(text);
  // a file that is not JSON is reported by the hooks' reader (claudeSettings.ts)
  if (!parsed.ok || !isObject(parsed.value) || parsed.value['sandbox'] === undefined) return undefined;
  const raw = parsed.value['sandbox'];
  if (!isObject(raw)) throw new ConfigError(`${file}: field "sandbox" must be an object`);
  const known = pick(raw, [...KEYS, 'filesystem', 'network']);
  if (isObject(known['filesystem'])) known['filesystem'] = pick(known['filesystem'], FS_KEYS);
  if (isObject(known['network'])) known['network'] = pick(known['network'], NET_KEYS);
  const r = z.safeParse(SandboxFileSchema, known);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new ConfigError(`${file}: field "sandbox.${issue.path.join('.')}": ${issue.message}`);
  }
  return r.data;
}

function agentrcSandbox(file: string): SandboxFileConfig | undefined {
  const read = readRawConfig(file);
  return read ? validateConfig(file, read.json, read).sandbox : undefined;
}

/** `~/x` and relative paths made absolute: a relative one against the file's base (home, or the project). */
const absolute = (p: string, base: string, home: string): string => (p.startsWith('~/') ? join(home, p.slice(2)) : isAbsolute(p) ? p : resolve(base, p));

/** The settings in force; what a project's file could not widen is added to `warnings`. */
export function sandboxSettings(cwd: string, home: string = homeDir(), warnings: string[] = []): SandboxSettings {
  const personal = [join(home, '.claude', 'settings.json'), join(home, '.agentrc')];
  const project = [join(cwd, '.claude', 'settings.json'), join(cwd, '.claude', 'settings.local.json'), join(cwd, '.agentrc')].filter(
    (f) => !personal.includes(f),
  );
  const s = freshDefaults();
  for (const file of [...personal, ...project]) {
    const own = personal.includes(file);
    const c = file.endsWith('.agentrc') ? agentrcSandbox(file) : claudeSandbox(file);
    if (c === undefined) continue;
    s.sources.push(file);
    const base = own ? home : cwd;
    const paths = (l: string[] | undefined): string[] => (l ?? []).map((p) => absolute(p, base, home));
    const widens = (field: string, why: string): void => {
      warnings.push(
        `${file}: sandbox.${field} ignored: a project's settings may narrow the sandbox, not widen it (${why}); set it in ~/.claude/settings.json or ~/.agentrc`,
      );
    };
    // a flag that narrows when it is `narrow`: a project may set it that way only
    const flag = (key: 'enabled' | 'autoAllowBashIfSandboxed' | 'allowUnsandboxedCommands' | 'failIfUnavailable', narrow: boolean, why: string): void => {
      const v = c[key];
      if (typeof v !== 'boolean' || v === s[key]) return;
      if (own || v === narrow) s[key] = v;
      else widens(key, why);
    };
    flag('enabled', true, 'it would run commands unsandboxed');
    flag('autoAllowBashIfSandboxed', false, 'it would run commands without asking');
    flag('allowUnsandboxedCommands', false, 'it would let commands leave the sandbox');
    flag('failIfUnavailable', true, 'it would run commands without the sandbox');
    const wider = (field: string, list: string[] | undefined, into: string[]): void => {
      if (!list || list.length === 0) return;
      if (own) into.push(...list);
      else widens(field, 'it would open more than the person allowed');
    };
    wider('excludedCommands', c.excludedCommands, s.excludedCommands);
    wider('filesystem.allowWrite', c.filesystem?.allowWrite && paths(c.filesystem.allowWrite), s.allowWrite);
    wider('network.allowedDomains', c.network?.allowedDomains, s.allowedDomains);
    s.denyWrite.push(...paths(c.filesystem?.denyWrite));
    s.denyRead.push(...paths(c.filesystem?.denyRead));
    s.deniedDomains.push(...(c.network?.deniedDomains ?? []));
  }
  return s;
}
