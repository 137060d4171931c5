import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { slot, world } from './runtime/world.js';
import { KEY_SHAPES, redactReversedKeys, secretForms } from './secretForms.js';

// Debug logging goes to a file (never the screen: it would corrupt the TUI) and every
// line passes through redact(), so API keys cannot reach the log.

/** What one run registered and where its log goes (its world's: two runs in one process see only their own). */
interface LogState {
  secrets: Set<string>;
  /** Every form of every registered secret, longest first. */
  forms: string[];
  logFile: string | undefined;
  /** --debug=full: message and tool contents go to the log too (still redacted); by default only figures, names and errors. */
  fullContent: boolean;
}
const LOG = Symbol('log');
const state = (): LogState => slot(LOG, () => ({ secrets: new Set<string>(), forms: [], logFile: undefined, fullContent: false }));

/** Registers a secret value (an API key) that must never be written anywhere, nor its reversed, base64 or hex forms. */
export function registerSecret(value: string | undefined): void {
  const s = state();
  if (!value || value.length < 8 || s.secrets.has(value)) return;
  s.secrets.add(value);
  // the value itself always (a short password is still a secret); its derived forms once long enough to be unlike ordinary text
  s.forms = [...new Set([...s.forms, value, ...secretForms(value)])].sort((a, b) => b.length - a.length);
}

const HEADER_PATTERNS = [/(authorization["']?\s*[:=]\s*["']?bearer\s+)[^\s"',]+/gi, /(x-api-key["']?\s*[:=]\s*["']?)[^\s"',]+/gi];

function removeForms(text: string): string {
  let out = text;
  for (const f of state().forms) if (out.includes(f)) out = out.split(f).join('[redacted]');
  return out;
}

const replaceAll = (text: string, patterns: readonly RegExp[]): string =>
  patterns.reduce((out, re) => out.replace(re, (_m, prefix: unknown) => (typeof prefix === 'string' ? `${prefix}[redacted]` : '[redacted]')), text);

/** Removes the registered secrets (every form) and provider-key shapes: what enters the history, so neither the database nor later requests carry a key. */
export function redactSecrets(text: string): string {
  return replaceAll(redactReversedKeys(removeForms(text)), KEY_SHAPES);
}

/** Removes registered secrets, anything shaped like an API key, and auth headers (logs, tool output, errors). */
export function redact(text: string): string {
  return replaceAll(redactReversedKeys(removeForms(text)), [...KEY_SHAPES, ...HEADER_PATTERNS]);
}

/** Whether a debug log is being written (callers skip building what it would not write). */
export const debugEnabled = (): boolean => state().logFile !== undefined;

/** Whether contents may be logged (--debug=full). */
export const debugFull = (): boolean => state().logFile !== undefined && state().fullContent;

/** The debug log cannot be written; the message names the path and the reason. */
export class DebugLogError extends Error {
  override readonly name = 'DebugLogError';
}

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'it is a directory',
  ENOSPC: 'no space left on the device',
};

/** Creates the log's missing directories (0700) one by one and opens the file for appending: fails at once, never loops. */
function prepareLogFile(path: string): void {
  if (existsSync(path) && statSync(path).isDirectory()) throw Object.assign(new Error('it is a directory'), { code: 'EISDIR' });
  const missing: string[] = [];
  let dir = dirname(path);
  while (!existsSync(dir) && dirname(dir) !== dir) {
    missing.unshift(dir);
    dir = dirname(dir);
  }
  if (!statSync(dir).isDirectory()) throw Object.assign(new Error(`${dir} is not a directory`), { code: 'ENOTDIR' });
  for (const d of missing) mkdirSync(d, { mode: 0o700 });
  closeSync(openSync(path, 'a', 0o600));
}

/** Starts the debug log; throws DebugLogError ("cannot write debug log <path>: <reason>") when it cannot be written. */
export function enableDebugLog(file: string, opts: { full?: boolean } = {}): void {
  const s = state();
  s.fullContent = opts.full === true;
  try {
    prepareLogFile(resolve(world().cwd, file));
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new DebugLogError(`cannot write debug log ${file}: ${(err.code && REASONS[err.code]) ?? err.message}`);
  }
  s.logFile = resolve(world().cwd, file);
  debug(`--- agent started (pid ${process.pid})`);
}

export function debug(message: string, data?: unknown): void {
  const logFile = state().logFile;
  if (!logFile) return;
  let line = `${new Date().toISOString()} ${message}`;
  if (data !== undefined) {
    try {
      line += ` ${JSON.stringify(data)}`;
    } catch {
      line += ` ${String(data)}`;
    }
  }
  try {
    appendFileSync(logFile, `${redact(line)}\n`, { mode: 0o600 });
  } catch {
    // a broken log must never break the session
  }
}
