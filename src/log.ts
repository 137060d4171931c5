import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { KEY_SHAPES, secretForms } from './secretForms.js';

// Debug logging goes to a file (never the screen: it would corrupt the TUI) and every
// line passes through redact(), so API keys cannot reach the log.

const secrets = new Set<string>();
/** Every form of every registered secret, longest first. */
let forms: string[] = [];

/** Registers a secret value (an API key) that must never be written anywhere, nor its reversed, base64 or hex forms. */
export function registerSecret(value: string | undefined): void {
  if (!value || value.length < 8 || secrets.has(value)) return;
  secrets.add(value);
  forms = [...new Set([...forms, ...secretForms(value)])].sort((a, b) => b.length - a.length);
}

const HEADER_PATTERNS = [/(authorization["']?\s*[:=]\s*["']?bearer\s+)[^\s"',]+/gi, /(x-api-key["']?\s*[:=]\s*["']?)[^\s"',]+/gi];

function removeForms(text: string): string {
  let out = text;
  for (const f of forms) if (out.includes(f)) out = out.split(f).join('[redacted]');
  return out;
}

const replaceAll = (text: string, patterns: readonly RegExp[]): string =>
  patterns.reduce((out, re) => out.replace(re, (m, prefix: unknown) => (typeof prefix === 'string' ? `${prefix}[redacted]` : '[redacted]')), text);

/** Removes the registered secrets (every form) and provider-key shapes: what enters the history, so neither the database nor later requests carry a key. */
export function redactSecrets(text: string): string {
  return replaceAll(removeForms(text), KEY_SHAPES);
}

/** Removes registered secrets, anything shaped like an API key, and auth headers (logs, tool output, errors). */
export function redact(text: string): string {
  return replaceAll(removeForms(text), [...KEY_SHAPES, ...HEADER_PATTERNS]);
}

let logFile: string | undefined;

export function enableDebugLog(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  logFile = file;
  debug(`--- agent started (pid ${process.pid})`);
}

export function debug(message: string, data?: unknown): void {
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
