import { inWorld, world } from './runtime/world.js';
import { createRuntime, type Runtime } from './bootstrap.js';
import { CliError, EXIT_OK, EXIT_USAGE } from './cliError.js';
import type { GlobalOptions } from './cliOptions.js';
import { commandInfos, parseSlash } from './commands/registry.js';
import { redact } from './log.js';
import { onTerminatingSignals, terminate, terminatingSignal, type Shutdown } from './processes/signals.js';
import { keepAfterPrint, stopAfterPrint } from './background/printEnd.js';
import { unsavedFacts } from './unsavedExit.js';
import type { InitFacts } from './print/claudeStream.js';
import { CLAUDE_PERMISSION_MODE } from './print/claudeShapes.js';
import { readInputLines } from './print/inputStream.js';
import { PrintTurns } from './print/printTurns.js';
import pkg from '../package.json' with { type: 'json' };

// Non-interactive mode: one turn (or one slash command), printed as text, as Claude Code's
// result object (json) or its message stream (stream-json, print/claudeStream.ts), or as this
// project's own events, one per line (events; the turns themselves: print/printTurns.ts). With
// --input-format stream-json, each line of stdin is one more turn of the same session. Nobody
// can approve tools here, so what needs approval is refused unless the config or flags allow it.

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of world().stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function promptOf(opts: GlobalOptions, words: string[]): Promise<string> {
  const given = [typeof opts.print === 'string' ? opts.print : '', ...words].filter(Boolean).join(' ').trim();
  if (given) return given;
  if (!world().stdin.isTTY) return (await readStdin()).trim();
  return '';
}

/** What the system/init message says about this run. */
function initFacts(runtime: Runtime): InitFacts {
  const { session } = runtime;
  return {
    cwd: session.currentConfig.cwd,
    tools: runtime.toolNames,
    mcpServers: (runtime.mcp?.views() ?? []).map((v) => ({ name: v.name, status: v.state === 'connecting' ? 'pending' : v.state })),
    model: session.currentConfig.model.name,
    permissionMode: CLAUDE_PERMISSION_MODE[session.permissions().mode],
    slashCommands: commandInfos(runtime.commands, {}, runtime.slash).map((c) => c.name),
    skills: runtime.skills.list().map((s) => s.name),
    version: pkg.version,
  };
}

/** The slash commands that only read the session: -p runs them on a copy of a session another process writes (RuntimeHost.readsOnly). */
const VIEWS: ReadonlySet<string> = new Set(['context', 'cost', 'agents', 'skills', 'todos', 'history', 'help']);

export async function runPrint(opts: GlobalOptions, words: string[]): Promise<number> {
  if (opts.resume === true) {
    throw new CliError(
      '--resume needs a session id in print mode (the picker needs the interactive app): use --resume <id>, --continue, or `agent sessions` to find one',
      EXIT_USAGE,
    );
  }
  const format = opts.outputFormat;
  const inputStream = opts.inputFormat === 'stream-json';
  if (inputStream && format !== 'stream-json')
    throw new CliError('--input-format stream-json needs --output-format stream-json (one result message per input line)', EXIT_USAGE);
  if (opts.includePartialMessages && format !== 'stream-json')
    throw new CliError('--include-partial-messages needs --output-format stream-json (its stream_event lines are part of that stream)', EXIT_USAGE);
  const prompt = inputStream ? '' : await promptOf(opts, words);
  if (!inputStream && !prompt) throw new CliError('no prompt: pass it as `agent -p "<prompt>"` or on standard input', EXIT_USAGE);
  // a view of the session reads a copy when another process (the TUI) writes it
  const slash = inputStream ? undefined : parseSlash(prompt);
  const { runtime } = await createRuntime(opts, { readsOnly: slash !== undefined && VIEWS.has(slash.name) });
  const { session, config } = runtime;
  const turns = new PrintTurns(runtime, { format, inputStream, partialMessages: opts.includePartialMessages === true });
  // SIGTERM, SIGHUP, and a Ctrl+C when no turn runs: the turn is interrupted, the servers closed,
  // every child process group (Bash, hooks, MCP servers) stopped, then the exit (processes/signals.ts)
  const shutdown: Shutdown = async (signal) => {
    session.interrupt();
    const facts = session.saving.flush() ? undefined : unsavedFacts(session);
    if (facts) world().stderr.write(`agent: error: ${facts}; they are lost: the run was ended by ${signal}.\n`);
    const closing = runtime.mcp?.close();
    // the interrupted turn stores how it ended (its commands' results marked interrupted) before the database closes
    await Promise.race([turns.running, new Promise((r) => setTimeout(r, 1_500).unref())]);
    runtime.close();
    await closing;
  };
  const offSignals = onTerminatingSignals(['SIGTERM', 'SIGHUP'], shutdown);
  // the first Ctrl+C interrupts the turn (its commands are stopped with it), the result says so
  const w = world();
  const onSigint = (): void =>
    inWorld(w, () => {
      if (!session.interrupt()) void terminate('SIGINT', shutdown);
    });
  w.signals.on('SIGINT', onSigint);
  for (const w of config.warnings) world().stderr.write(`agent: warning: ${w}\n`);
  for (const note of session.loadNotes) world().stderr.write(`agent: ${redact(note)}\n`);
  // a resumed session's unfinished goal waits for the person (a turn of this run answers its own prompt only)
  const goal = runtime.goals.of(session.id)?.view();
  if (goal && (goal.status === 'paused' || goal.status === 'budget_limited'))
    world().stderr.write(
      `agent: goal ${goal.status.replace('_', '-')}${goal.reason ? ` (${goal.reason})` : ''}: ${redact(goal.objective)}; /goal resume goes on with it\n`,
    );
  const mcp = runtime.mcp;
  if (mcp) {
    mcp.onNotice = (level, text) => turns.notice(level, text);
    for (const s of mcp.awaitingApproval()) {
      world().stderr.write(
        `agent: MCP server "${s.name}" from ${s.file} was not started: a project's servers run only once approved (${s.changed ? 'its entry changed since you approved it' : 'not approved yet'}). ` +
          `Approve it in the interactive app, or pass --mcp-trust (or set mcp.trustProject in your own ~/.agentrc). It would run: ${redact(s.runs)}\n`,
      );
    }
    mcp.start();
    await mcp.ready(config.mcp.startupMs);
    for (const v of mcp.views())
      if (v.state === 'connecting')
        world().stderr.write(`agent: MCP server "${v.name}" is still connecting after ${config.mcp.startupMs} ms (mcp.startupMs); going on without it\n`);
  }

  turns.listen();

  try {
    if (format === 'stream-json') turns.claude.init(initFacts(runtime));
    if (!inputStream) return await turns.once(prompt, []);
    // Claude Code's input stream: one user message per line, one turn and one result each, until EOF
    let code = EXIT_OK;
    for await (const line of readInputLines(world().stdin)) {
      if ('error' in line) throw new CliError(line.error, EXIT_USAGE);
      code = Math.max(code, await turns.once(line.text, line.images));
      if (turns.stdoutClosed) break;
    }
    return code;
  } finally {
    w.signals.off('SIGINT', onSigint);
    offSignals();
    // (after a signal every group is stopped: processes/signals.ts)
    if (!terminatingSignal()) {
      if (opts.keepBackground) keepAfterPrint(runtime.background, (t) => world().stderr.write(t));
      else await stopAfterPrint(runtime.background, (t) => world().stderr.write(t));
    }
    // an input stream that ended: the same for its last turn's background compaction
    if (inputStream && !terminatingSignal()) await session.settleCompaction();
    runtime.close();
    await runtime.mcp?.close();
  }
}
