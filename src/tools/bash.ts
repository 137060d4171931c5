import * as z from 'zod/mini';
import { PROVIDER_KEY_VARS } from '../config/secrets.js';
import { fmtDuration, fmtInt } from './format.js';
import { parseInput, toInputSchema } from './inputSchema.js';
import { killGroup, trackGroup } from '../processes/groups.js';
import { defaultShell } from './shell.js';
import { TerminalText } from './terminalText.js';
import { FullOutputBuffer, fullOutputOf, type FullOutput } from './spill.js';
import { HeadTailBuffer } from './truncate.js';
import type { Tool, ToolContext, ToolOutput } from './types.js';
import { promptText } from '../promptText.js';
import DESCRIPTION from './bash.md';
import { TOOL } from './toolNames.js';

export interface BashOptions {
  /** Timeout when the model names none (ms). */
  timeoutMs: number;
  /** Longest timeout the model may ask for (ms); longer requests are reduced to it. */
  maxTimeoutMs: number;
  /** Output beyond this many characters keeps its head and tail with a marker between. */
  maxOutputChars: number;
  /** Shell to run commands with (default: bash from PATH, else /bin/sh). */
  shell?: string;
  /** After SIGTERM, how long a killed command gets before SIGKILL (ms). Default 1000. */
  killGraceMs?: number;
  /** After the shell exits, how long to wait for output still in the pipe (ms). Default 250. */
  drainMs?: number;
  /** Variables commands must not see (API keys). Default: every provider key variable. */
  hideEnv?: (name: string) => boolean;
}

const hideProviderKeys = (name: string): boolean => PROVIDER_KEY_VARS.includes(name);

/** The environment a command runs with: this process's, minus the hidden variables. */
function commandEnv(hide: (name: string) => boolean): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !hide(k)) env[k] = v;
  return { ...env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', PAGER: 'cat' };
}

const BashInputSchema = z.object({
  command: z.string().check(z.minLength(1), z.describe('The shell command to run (bash syntax).')),
  timeout: z.optional(z.int().check(z.minimum(1))).check(z.describe('Timeout in milliseconds.')),
  description: z.optional(z.string()).check(z.describe('A few words saying what the command does, shown to the user (e.g. "Run the unit tests").')),
});
export type BashInput = z.infer<typeof BashInputSchema>;

export function createBashTool(opts: BashOptions): Tool<BashInput> {
  const inputSchema = toInputSchema(BashInputSchema);
  return {
    name: TOOL.Bash,
    description: promptText(DESCRIPTION, {
      timeout: fmtDuration(opts.timeoutMs),
      maxTimeout: fmtDuration(opts.maxTimeoutMs),
      maxOutputChars: fmtInt(opts.maxOutputChars),
    }),
    inputSchema,
    kind: 'execute',
    parse(input) {
      const parsed = parseInput('Bash', BashInputSchema, inputSchema, input);
      if (parsed.timeout !== undefined && parsed.timeout > opts.maxTimeoutMs) parsed.timeout = opts.maxTimeoutMs;
      return parsed;
    },
    summarize: (input) => input.command,
    run: (input, ctx) => runCommand(input, ctx, opts),
  };
}

type StopReason = 'timeout' | 'interrupted';

async function runCommand(input: BashInput, ctx: ToolContext, opts: BashOptions): Promise<ToolOutput> {
  // loaded on the first command, not with the tool list: most start-ups never run one
  const { execa } = await import('execa');
  if (ctx.signal.aborted) return { content: 'Command interrupted before it started.', isError: true };
  const timeoutMs = Math.min(input.timeout ?? opts.timeoutMs, opts.maxTimeoutMs);
  const grace = opts.killGraceMs ?? 1000;
  const shell = opts.shell ?? defaultShell();

  // The outer shell only redirects stderr into stdout and execs the real one, so both
  // streams share one pipe (exact interleaving) and the command text runs unchanged.
  const sub = execa(shell, ['-c', 'exec "$0" -c "$1" 2>&1', shell, input.command], {
    cwd: ctx.cwd,
    stdin: 'ignore',
    all: true,
    buffer: false,
    reject: false,
    // own session and process group: no controlling terminal (nothing can prompt on
    // /dev/tty), and the whole tree can be killed at once
    detached: true,
    cleanup: false,
    // the keys this process holds are not the command's business (nor the model's)
    env: commandEnv(opts.hideEnv ?? hideProviderKeys),
    extendEnv: false,
  });
  const result = sub.then(
    (r) => r,
    (e: unknown) => e,
  );

  const buffer = new HeadTailBuffer(opts.maxOutputChars);
  // the whole output (capped) for a spill: what the archive keeps when the head and tail are cut
  const whole = new FullOutputBuffer();
  const cleaner = new TerminalText();
  const decoder = new TextDecoder('utf-8');
  const stream = sub.all;
  let ended = false;
  const streamEnded = new Promise<void>((resolve) => {
    if (!stream) return resolve();
    stream.on('data', (chunk: Buffer | string) => {
      const text = cleaner.push(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
      buffer.push(text);
      whole.push(text);
      if (text !== '') ctx.onProgress?.(text);
    });
    stream.once('end', () => resolve());
    stream.once('close', () => resolve());
    stream.once('error', () => resolve());
  }).then(() => {
    ended = true;
  });

  const pid = sub.pid;
  const untrack = pid !== undefined ? trackGroup(pid, 'bash', input.command) : () => undefined;
  let stopReason: StopReason | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = (why: StopReason): void => {
    if (stopReason || pid === undefined) return;
    stopReason = why;
    killGroup(pid, 'SIGTERM');
    killTimer = setTimeout(() => killGroup(pid, 'SIGKILL'), grace);
  };
  const timer = setTimeout(() => stop('timeout'), timeoutMs);
  const onAbort = (): void => stop('interrupted');
  ctx.signal.addEventListener('abort', onAbort, { once: true });

  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: unknown }>((resolve) => {
    sub.once('exit', (code, signal) => resolve({ code, signal }));
    sub.once('error', (error) => resolve({ code: null, signal: null, error }));
  });
  clearTimeout(timer);
  ctx.signal.removeEventListener('abort', onAbort);
  if (stopReason && pid !== undefined) {
    // the shell is gone; whatever it started that ignored SIGTERM goes now
    killGroup(pid, 'SIGKILL');
  }
  clearTimeout(killTimer);
  untrack();

  // Output still in the pipe arrives right after exit; a background process that keeps
  // the pipe open must not hold the result back.
  if (!ended) await Promise.race([streamEnded, new Promise((r) => setTimeout(r, opts.drainMs ?? 250))]);
  stream?.destroy();
  sub.stdout?.destroy();
  sub.stderr?.destroy();
  void result;

  for (const rest of [cleaner.push(decoder.decode()), cleaner.flush()]) {
    buffer.push(rest);
    whole.push(rest);
  }
  const cut = buffer.result();
  const body = cut.text.replace(/\s+$/, '');
  // the whole output with the same words around it, only when the head-and-tail cut left something out
  const withWhole = (out: { content: string; isError: boolean }, prefix: string, suffix: string): { content: string; isError: boolean; full?: FullOutput } => {
    if (!cut.truncated) return out;
    const w = whole.result();
    // kept whole: counted again as it stands, trailing whitespace trimmed (so no cap is claimed for it)
    if (w.totalChars === w.text.length) return { ...out, full: fullOutputOf(`${prefix}${w.text.replace(/\s+$/, '')}${suffix}`) };
    // cut at the archive's cap: the end is gone, so nothing is trimmed and the totals stand
    const extraLines = (prefix.match(/\n/g)?.length ?? 0) + (suffix.match(/\n/g)?.length ?? 0);
    return {
      ...out,
      full: {
        text: `${prefix}${w.text}${suffix}`,
        totalChars: w.totalChars + prefix.length + suffix.length,
        totalLines: w.totalLines + extraLines,
        totalBytes: w.totalBytes + Buffer.byteLength(prefix + suffix),
      },
    };
  };

  if (exit.error !== undefined) {
    const msg = exit.error instanceof Error ? exit.error.message : String(exit.error);
    return { content: `Could not run the command: ${msg}`, isError: true };
  }
  if (stopReason === 'timeout') {
    const prefix = `Command timed out after ${fmtDuration(timeoutMs)}; partial output:\n`;
    return withWhole(
      { content: `Command timed out after ${fmtDuration(timeoutMs)}${body ? `; partial output:\n${body}` : ', with no output.'}`, isError: true },
      prefix,
      '',
    );
  }
  if (stopReason === 'interrupted') {
    return { content: `Command interrupted${body ? `; partial output:\n${body}` : ', with no output.'}`, isError: true };
  }
  if (exit.signal)
    return withWhole({ content: `${body ? `${body}\n\n` : ''}Killed by signal ${exit.signal}`, isError: true }, '', `\n\nKilled by signal ${exit.signal}`);
  if (exit.code !== 0)
    return withWhole(
      { content: `${body ? `${body}\n\n` : ''}Exit code ${exit.code ?? 'unknown'}`, isError: true },
      '',
      `\n\nExit code ${exit.code ?? 'unknown'}`,
    );
  return withWhole({ content: body || '(no output)', isError: false }, '', '');
}
