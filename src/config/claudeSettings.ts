// Claude Code's hooks, from the settings files Claude Code reads them from: ~/.claude/settings.json
// (the person's own) and the project's .claude/settings.json and .claude/settings.local.json. Only
// `hooks` (and `disableAllHooks`) is read there; every other setting is Claude Code's business,
// but a project's `statusLine` is named as ignored (the person may expect it to run).
// The events this agent has run as Claude Code runs them: same matchers, same JSON on stdin, same
// answers (hooks/decision.ts). A hook of an event it does not have, or of another type than
// "command", is named at start and not run; a file that is not JSON is named with its line and
// column, and its hooks do not run. A project's files run only once the person approved them,
// each file on its own, as a project's .agentrc hooks do (hooks/hooks.ts, trust/projectTrust.ts).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseJsonc } from './jsonc.js';
import { HOOK_EVENTS, type HookCommand, type HookEventName, type HookSource, type HooksConfig } from './schema.js';

const SETTINGS = ['settings.json', 'settings.local.json'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The hook sources of Claude Code's settings files, and what the person should be told about them. */
export function claudeHookSources(home: string, cwd: string): { sources: HookSource[]; warnings: string[] } {
  const files: Array<{ file: string; scope: HookSource['scope']; dir: string; trustName?: string }> = [
    { file: join(home, '.claude', 'settings.json'), scope: 'user', dir: home },
  ];
  // run from the home directory, ~/.claude/settings.json is the person's file, not a project's
  for (const name of SETTINGS) {
    const file = join(cwd, '.claude', name);
    if (resolve(file) !== resolve(files[0]!.file)) files.push({ file, scope: 'project', dir: cwd, trustName: `.claude/${name}` });
  }
  const warnings: string[] = [];
  const read: Array<{ at: (typeof files)[number]; json: Record<string, unknown> }> = [];
  for (const at of files) {
    let text: string;
    try {
      text = readFileSync(at.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') warnings.push(`${at.file}: cannot read the file (${(e as Error).message}); its hooks do not run`);
      continue;
    }
    const parsed = parseJsonc(text);
    if (!parsed.ok) warnings.push(`${at.file}: not valid JSON at ${parsed.problem}; its hooks do not run`);
    else if (!isObject(parsed.value)) warnings.push(`${at.file}: must hold a JSON object ({ ... }); its hooks do not run`);
    else read.push({ at, json: parsed.value });
  }
  // a project's statusLine would run a repository's command unapproved: said, never silently ignored
  for (const { at, json } of read)
    if (at.scope === 'project' && json['statusLine'] !== undefined)
      warnings.push(`${at.file}: statusLine is read from ~/.agentrc only (a project's command would run without your approval); ignored`);
  // Claude Code's own switch: hooks off wherever it is set
  if (read.some((r) => r.json['disableAllHooks'] === true)) return { sources: [], warnings };
  const sources: HookSource[] = [];
  for (const { at, json } of read) {
    if (json['hooks'] === undefined) continue;
    const hooks = hooksOf(at.file, json['hooks'], warnings);
    if (Object.values(hooks).some((l) => l.length > 0)) sources.push({ ...at, hooks });
  }
  return { sources, warnings };
}

/** `hooks` of one settings file: Claude Code's groups flattened, one command each; what cannot run is told. */
function hooksOf(file: string, raw: unknown, warnings: string[]): HooksConfig {
  const out: HooksConfig = {};
  if (!isObject(raw)) {
    warnings.push(`${file}: field "hooks" must be an object of events; its hooks do not run`);
    return out;
  }
  const unknown: string[] = [];
  for (const [event, groups] of Object.entries(raw)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      unknown.push(event);
      continue;
    }
    if (!Array.isArray(groups)) {
      warnings.push(`${file}: field "hooks.${event}" must be a list of { matcher, hooks }; those hooks do not run`);
      continue;
    }
    const list: HookCommand[] = [];
    for (const [i, g] of groups.entries()) {
      const where = `${file}: field "hooks.${event}[${i}]`;
      if (!isObject(g) || !Array.isArray(g['hooks']) || (g['matcher'] !== undefined && typeof g['matcher'] !== 'string')) {
        warnings.push(`${where}" must be { "matcher": "…", "hooks": [ … ] }; it does not run`);
        continue;
      }
      const matcher = g['matcher'] as string | undefined;
      for (const [j, h] of (g['hooks'] as unknown[]).entries()) {
        const type = isObject(h) ? h['type'] : undefined;
        if (!isObject(h) || type !== 'command' || typeof h['command'] !== 'string' || h['command'].trim() === '') {
          const why =
            type !== undefined && type !== 'command'
              ? `a hook of type "${String(type)}" is not run here (only "command")`
              : 'needs "type": "command" and a "command"';
          warnings.push(`${where}.hooks[${j}]": ${why}`);
          continue;
        }
        const timeout = h['timeout'];
        list.push({
          ...(matcher !== undefined ? { matcher } : {}),
          command: h['command'],
          ...(typeof timeout === 'number' && timeout > 0 ? { timeoutMs: Math.round(timeout * 1000) } : {}),
        });
      }
    }
    if (list.length > 0) out[event as HookEventName] = list;
  }
  if (unknown.length > 0) warnings.push(`${file}: hooks for ${unknown.join(', ')} are not run (this agent has no such event)`);
  return out;
}
