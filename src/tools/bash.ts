import { world } from '../runtime/world.js';
import * as z from 'zod/mini';
import { PROVIDER_KEY_VARS } from '../config/secrets.js';
import { fmtDuration, fmtInt } from './format.js';
import { parseInput, toInputSchema } from './inputSchema.js';
import { BashRun, type Exited, type StopReason } from './bashRun.js';
import { defaultShell } from './shell.js';
import { ARCHIVE_CAP_CHARS, FullOutputBuffer, fullOutputOf, type FullOutput } from './spill.js';
import { TerminalText } from './terminalText.js';
import { HeadTailBuffer } from './truncate.js';
import type { CallGrant, CommandSandbox, CommandTerminal, Tool, ToolContext, ToolOutput, ToolSession } from './types.js';
import { promptText } from '../promptText.js';
import DESCRIPTION from './bash.md';
import SANDBOX_DESCRIPTION from './bashSandbox.md';
import SANDBOX_ESCAPE from './bashSandboxEscape.md';
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
  /** The OS sandbox commands run in (src/sandbox/, lent at bootstrap when sandbox.enabled is set). */
  sandbox?: CommandSandbox;
}

const hideProviderKeys = (name: string): boolean => PROVIDER_KEY_VARS.includes(name);

/** The environment a command runs with: this process's, minus the hidden variables. */
function commandEnv(hide: (name: string) => boolean): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(world().env)) if (v !== undefined && !hide(k)) env[k] = v;
  return { ...env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', PAGER: 'cat' };
}

const BashInputSchema = z.object({
  command: z.string().check(z.minLength(1), z.describe('The command (bash syntax).')),
  timeout: z.optional(z.int().check(z.minimum(1))).check(z.describe('Timeout in milliseconds.')),
  description: z.optional(z.string()).check(z.describe('What it does in a few words, shown to the user ("Run the unit tests").')),
  run_in_background: z.optional(z.boolean()).check(z.describe('Run it in the background; the call answers at once with an id.')),
});
/** With a sandbox the model may leave (sandbox.allowUnsandboxedCommands): the request to, which the person approves each time. */
const EscapableInputSchema = z.extend(BashInputSchema, {
  dangerouslyDisableSandbox: z
    .optional(z.boolean())
    .check(z.describe('Run this one command outside the sandbox; the user must approve it. Only when it cannot work inside (see the tool description).')),
});
export type BashInput = z.infer<typeof EscapableInputSchema>;

/** Bash runs in its session's terminal (an editor's) when it lends one, and hands commands to its background shells. */
export function createBashTool(opts: BashOptions, session: Pick<ToolSession, 'terminal' | 'background'> = {}): Tool<BashInput> {
  const sandbox = opts.sandbox;
  // without a sandbox the tool reads as it always did (the cached prefix's bytes hold)
  const schema = sandbox?.escapable ? EscapableInputSchema : BashInputSchema;
  const inputSchema = toInputSchema(schema);
  const sandboxText = sandbox ? promptText(SANDBOX_DESCRIPTION, { escape: sandbox.escapable ? promptText(SANDBOX_ESCAPE) : '' }) : '';
  return {
    name: TOOL.Bash,
    description:
      promptText(DESCRIPTION, {
        timeout: fmtDuration(opts.timeoutMs),
        maxTimeout: fmtDuration(opts.maxTimeoutMs),
        maxOutputChars: fmtInt(opts.maxOutputChars),
      }) + sandboxText,
    inputSchema,
    kind: 'execute',
    ...(sandbox ? { sandboxPlan: (input: BashInput) => sandbox.plan(input.command, input.dangerouslyDisableSandbox === true) } : {}),
    parse(input) {
      const parsed: BashInput = parseInput('Bash', schema, inputSchema, input);
      if (parsed.timeout !== undefined && parsed.timeout > opts.maxTimeoutMs) parsed.timeout = opts.maxTimeoutMs;
      return parsed;
    },
    summarize: (input) => input.command,
    // a background start waits FIRST_LINES_MS for its first lines: nine in one step wait together
    startsAlongside: (input) => input.run_in_background === true,
    run: (input, ctx, grant) => runCommand(input, ctx, grant ?? {}, session, opts),
  };
}

/** How long a command started in the background is watched for its first lines before the call answers (ms). */
const FIRST_LINES_MS = 300;

/**
 * Commands a timeout kills rather than moves to the background: waiting (`sleep`) is all they do,
 * and git holds the repository's lock while it runs, so a git left behind blocks the next one.
 * Judged by the program the command line starts with (after `VAR=value` assignments).
 */
export function staysInForeground(command: string): boolean {
  const words = command.trim().split(/\s+/);
  const program = words.find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) ?? '';
  return ['sleep', 'git'].includes(program.replace(/^.*\//, ''));
}

async function runCommand(
  input: BashInput,
  ctx: ToolContext,
  grant: CallGrant,
  session: Pick<ToolSession, 'terminal' | 'background'>,
  opts: BashOptions,
): Promise<ToolOutput> {
  // loaded on the first command, not with the tool list: most start-ups never run one
  const { execa } = await import('execa');
  if (ctx.signal.aborted) return { content: 'Command interrupted before it started.', isError: true };
  const background = session.background;
  if (input.run_in_background) {
    const refused = background ? background.refusal() : 'background commands are not available in this session';
    if (refused !== undefined) return { content: `Not started: ${refused}.`, isError: true };
  }
  const timeoutMs = Math.min(input.timeout ?? opts.timeoutMs, opts.maxTimeoutMs);
  const shell = opts.shell ?? defaultShell();
  const placed = await placement(input, ctx, grant, opts, shell);
  if (typeof placed === 'string') return { content: placed, isError: true };
  // a front end's terminal (an editor's) runs foreground commands outside the sandbox's reach: a sandboxed one runs here
  if (session.terminal && !input.run_in_background && !placed.inside) return runInTerminal(session.terminal, input, ctx, opts, timeoutMs);

  // The outer shell only redirects stderr into stdout and execs the real one (or the sandbox's
  // wrapper), so both streams share one pipe (exact interleaving) and the command text runs unchanged.
  const sub = execa(shell, placed.args, {
    cwd: ctx.cwd,
    stdin: 'ignore',
    buffer: false,
    reject: false,
    // own session and process group: no controlling terminal (nothing can prompt on
    // /dev/tty), and the whole tree can be killed at once
    detached: true,
    cleanup: false,
    // the keys this process holds are not the command's business (nor the model's)
    env: { ...commandEnv(opts.hideEnv ?? hideProviderKeys), ...placed.env },
    extendEnv: false,
  });
  const run = new BashRun(input.command, sub, {
    maxOutputChars: opts.maxOutputChars,
    graceMs: opts.killGraceMs ?? 1000,
    drainMs: opts.drainMs ?? 250,
    onProgress: ctx.onProgress,
  });

  if (input.run_in_background && background && run.pid !== undefined) {
    const id = background.adopt(run.handOver(input.command));
    // what it prints at once (a server's "listening on …", an early error) comes with the answer
    await Promise.race([run.ended, new Promise((r) => setTimeout(r, FIRST_LINES_MS))]);
    const first = background.firstLines(id);
    return {
      content:
        `Started in the background as ${id} (pid ${run.pid}): ${input.command}\n` +
        `${first ? `First lines:\n${first}\n` : ''}` +
        `You will be told when it ends. Read its output with Recall id="${id}" (offset/limit, pattern, or since_last_read=true); stop it with ${TOOL.KillShell}.`,
      isError: false,
    };
  }

  // past the timeout a command moves to the background, unless it makes no sense there or there is no room
  let moved: string | undefined;
  let byPerson = false;
  let onMove: () => void = () => undefined;
  const movedOut = new Promise<void>((r) => (onMove = r));
  const timer = setTimeout(() => {
    const room = background && !staysInForeground(input.command) && run.pid !== undefined && background.refusal() === undefined;
    if (!room) return run.stop('timeout');
    moved = background.adopt(run.handOver(input.command));
    onMove();
  }, timeoutMs);
  // Ctrl+B: the person moves it now (the limit does not apply: it runs already)
  const release = background?.holdForeground(() => {
    if (moved !== undefined || run.stopReason || run.pid === undefined) return;
    byPerson = true;
    moved = background.adopt(run.handOver(input.command));
    onMove();
  });
  const onAbort = (): void => run.stop('interrupted');
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  await Promise.race([run.ended, movedOut]);
  clearTimeout(timer);
  release?.();
  ctx.signal.removeEventListener('abort', onAbort);
  const stopReason = run.stopReason;
  const buffer = run.buffer;
  const whole = run.whole;
  if (moved !== undefined) {
    const body = buffer.result().text.replace(/\s+$/, '');
    return {
      content:
        `${byPerson ? 'The person moved the command to the background' : `The command was still running after ${fmtDuration(timeoutMs)}, so it was moved to the background`} as ${moved}; it goes on running. ` +
        `You will be told when it ends; read its output with Recall id="${moved}" (since_last_read=true for what is new), stop it with ${TOOL.KillShell}.` +
        `${body ? `\nOutput so far:\n${body}` : ' No output so far.'}`,
      isError: false,
    };
  }
  const result = commandResult({ buffer, whole, exit: await run.ended, stopReason, timeoutMs });
  return placed.inside && opts.sandbox ? withDenials(result, opts.sandbox, placed.inside, whole.result().text, input.command) : result;
}

/** Where a command runs: the shell's arguments and the environment the sandbox adds; `inside` when in the sandbox. Or why it does not run. */
interface Placement {
  args: string[];
  env: Record<string, string>;
  inside?: { id: string; readOnly: boolean };
}

let commandSeq = 0;

/**
 * In the sandbox unless the gate let it out (an escape the person approved) or it is excluded;
 * read-only in plan mode. A sandbox that cannot start runs it as before (the gate asked the
 * person: none of it ran without asking), or refuses it with failIfUnavailable.
 */
async function placement(input: BashInput, ctx: ToolContext, grant: CallGrant, opts: BashOptions, shell: string): Promise<Placement | string> {
  const plain: Placement = { args: ['-c', 'exec "$0" -c "$1" 2>&1', shell, input.command], env: {} };
  const sandbox = opts.sandbox;
  const plan = sandbox?.plan(input.command, input.dangerouslyDisableSandbox === true);
  if (!sandbox || !plan) return plain;
  if (plan.kind === 'unavailable')
    return plan.refuse ? `Not run: the sandbox cannot start (${plan.why}), and sandbox.failIfUnavailable refuses every command without it.` : plain;
  const readOnly = grant.sandbox === 'readOnly';
  if (grant.sandbox === 'outside' || (plan.kind === 'outside' && plan.reason === 'excluded' && !readOnly)) return plain;
  const id = `${ctx.toolUseId ?? 'command'}#${++commandSeq}`;
  try {
    const w = await sandbox.wrap(input.command, shell, { cwd: ctx.cwd, readOnly, id });
    const hide = opts.hideEnv ?? hideProviderKeys;
    const env = Object.fromEntries(Object.entries(w.env).filter(([k]) => !hide(k)));
    return { args: ['-c', 'exec "$@" 2>&1', shell, ...w.argv], env, inside: { id, readOnly } };
  } catch (e) {
    return `Not run: the sandbox could not wrap the command (${(e as Error).message}).`;
  }
}

/** The result with what the sandbox denied the command (paths, domains), and what the model can do about it. */
function withDenials(out: ToolOutput, sandbox: CommandSandbox, inside: { id: string; readOnly: boolean }, text: string, command: string): ToolOutput {
  const denied = sandbox.denials(inside.id, text, { readOnly: inside.readOnly });
  if (denied.length === 0) return out;
  const how = inside.readOnly
    ? 'Plan mode only reads: finish the plan.'
    : `If the task needs it, tell the user which path (sandbox.filesystem.allowWrite) or domain (sandbox.network.allowedDomains) to allow${sandbox.escapable ? ', or, only if the command cannot work inside, run it again with dangerouslyDisableSandbox: true (the user is asked to approve it)' : ''}.`;
  const note = `\n\n[sandbox] The sandbox denied this command:\n${denied.map((d) => `- ${d}`).join('\n')}\n${how}`;
  return {
    ...out,
    content: out.content + note,
    ...(out.full ? { full: { ...out.full, text: out.full.text + note } } : {}),
    sandboxDenied: { command, lines: denied },
  };
}

/** A foreground command in the terminal a front end lent (an editor's): it shows there live; the model gets the same result as from a local run. */
async function runInTerminal(terminal: CommandTerminal, input: BashInput, ctx: ToolContext, opts: BashOptions, timeoutMs: number): Promise<ToolOutput> {
  const r = await terminal.run({
    command: input.command,
    shell: opts.shell ?? defaultShell(),
    cwd: ctx.cwd,
    toolUseId: ctx.toolUseId,
    outputByteLimit: ARCHIVE_CAP_CHARS,
    timeoutMs,
    signal: ctx.signal,
  });
  if (r.error !== undefined) return { content: `Could not run the command: ${r.error}`, isError: true };
  const cleaner = new TerminalText();
  const text = `${r.truncated ? '[the terminal dropped the earliest output]\n' : ''}${cleaner.push(r.output)}${cleaner.flush()}`;
  const buffer = new HeadTailBuffer(opts.maxOutputChars);
  const whole = new FullOutputBuffer();
  buffer.push(text);
  whole.push(text);
  return commandResult({ buffer, whole, exit: r.exit, stopReason: r.stopped, timeoutMs });
}

/** What the model reads of a command that ended in the foreground: its output (head and tail), and how it ended. */
function commandResult(r: {
  buffer: HeadTailBuffer;
  whole: FullOutputBuffer;
  exit: Exited;
  stopReason: StopReason | undefined;
  timeoutMs: number;
}): ToolOutput {
  const { buffer, whole, exit, stopReason, timeoutMs } = r;
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
