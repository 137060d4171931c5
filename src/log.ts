import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

// Debug logging goes to a file (never the screen: it would corrupt the TUI) and every
// line passes through redact(), so API keys cannot reach the log.

const secrets = new Set<string>();

/** Registers a secret value (an API key) that must never be written anywhere. */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 8) secrets.add(value);
}

const KEY_PATTERNS = [/sk-ant-[A-Za-z0-9_-]{8,}/g, /\bsk-[A-Za-z0-9_-]{16,}/g, /(authorization["']?\s*[:=]\s*["']?bearer\s+)[^\s"',]+/gi, /(x-api-key["']?\s*[:=]\s*["']?)[^\s"',]+/gi];

/** Replaces the registered secrets (exact values only, so ordinary text is never mangled). */
export function redactSecrets(text: string): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[redacted]');
  return out;
}

/** Removes registered secrets and anything shaped like an API key or auth header. */
export function redact(text: string): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join('[redacted]');
  for (const re of KEY_PATTERNS) out = out.replace(re, (m, prefix: unknown) => (typeof prefix === 'string' ? `${prefix}[redacted]` : '[redacted]'));
  return out;
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
