import { receiptText, reportLines } from './compaction/reportText.js';
import { createRuntime, type Runtime } from './bootstrap.js';
import { onClosedStdout } from './closedPipe.js';
import { CliError, EXIT_OK, EXIT_RUNTIME, EXIT_USAGE } from './cliError.js';
import type { GlobalOptions } from './cliOptions.js';
import { plansIn } from './plan/plans.js';
import { followTodos } from './plan/todos.js';
import { CommandError, commandInfos, findCustom, isCommandLine, runSlash } from './commands/registry.js';
import { CustomCommandError, runCustom } from './commands/customRun.js';
import { formatCommandOutput } from './commands/format.js';
import { addUsage, emptyUsage, textOf, type ImageBlock, type Usage } from './llm/messages.js';
import { costBreakdown, type CostBreakdown } from './session/pricing.js';
import { redact } from './log.js';
import { onTerminatingSignals, terminate, terminatingSignal, untilTerminated, type Shutdown } from './processes/signals.js';
import { keepAfterPrint, stopAfterPrint } from './background/printEnd.js';
import { unsavedFacts } from './unsavedExit.js';
import type { SessionEvent } from './protocol/events.js';
import { ClaudeStream, type InitFacts } from './print/claudeStream.js';
import { CLAUDE_PERMISSION_MODE } from './print/claudeShapes.js';
import { readInputLines } from './print/inputStream.js';
import pkg from '../package.json' with { type: 'json' };

// Non-interactive mode: one turn (or one slash command), printed as text, as Claude Code's
// result object (json) or its message stream (stream-json, print/claudeStream.ts), or as this
// project's own events, one per line (events). With --input-format stream-json, each line of
// stdin is one more turn of the same session. Nobody can approve tools here, so what needs
// approval is refused unless the config or flags allow it.

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function promptOf(opts: GlobalOptions, words: string[]): Promise<string> {
  const given = [typeof opts.print === 'string' ? opts.print : '', ...words].filter(Boolean).join(' ').trim();
  if (given) return given;
  if (!process.stdin.isTTY) return (await readStdin()).trim();
  return '';
}

/** The turn's estimated cost, cache reads and writes priced apart (absent for a model without a known price). */
function costFields(model: string, usage: Usage): { costUsd?: number; cost?: CostBreakdown } {
  const cost = costBreakdown(model, usage);
  return cost ? { costUsd: cost.total, cost } : {};
}

/** Set once the reader closed stdout (`| head -1`): nothing more is written there. */
let stdoutClosed = false;

const writeLine = (obj: unknown): void => {
  if (!stdoutClosed) process.stdout.write(`${redact(JSON.stringify(obj))}\n`);
};

/** What the system/init message says about this run. */
function initFacts(runtime: Runtime): InitFacts {
  const { session } = runtime;
  return {
    cwd: session.currentConfig.cwd,
    tools: runtime.toolNames,
    mcpServers: (runtime.mcp?.views() ?? []).map((v) => ({ name: v.name, status: v.state === 'connecting' ? 'pending' : v.state })),
    model: session.currentConfig.model.name,
    permissionMode: CLAUDE_PERMISSION_MODE[session.permissions().mode],
    slashCommands: commandInfos(runtime.commands).map((c) => c.name),
    skills: runtime.skills.list().map((s) => s.name),
    version: pkg.version,
  };
}

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
  // the streams carry everything; notices on stderr would only repeat them
  const quiet = format === 'stream-json' || format === 'events';
  const { runtime } = await createRuntime(opts);
  const { session, config } = runtime;
  // SIGTERM, SIGHUP, and a Ctrl+C when no turn runs: the turn is interrupted, the servers closed,
  // every child process group (Bash, hooks, MCP servers) stopped, then the exit (processes/signals.ts)
  let turn: Promise<unknown> | undefined;
  const shutdown: Shutdown = async (signal) => {
    session.interrupt();
    const facts = session.saving.flush() ? undefined : unsavedFacts(session);
    if (facts) process.stderr.write(`agent: error: ${facts}; they are lost: the run was ended by ${signal}.\n`);
    const closing = runtime.mcp?.close();
    // the interrupted turn stores how it ended (its commands' results marked interrupted) before the database closes
    await Promise.race([turn, new Promise((r) => setTimeout(r, 1_500).unref())]);
    runtime.close();
    await closing;
  };
  const offSignals = onTerminatingSignals(['SIGTERM', 'SIGHUP'], shutdown);
  // the first Ctrl+C interrupts the turn (its commands are stopped with it), the result says so
  const onSigint = (): void => {
    if (!session.interrupt()) void terminate('SIGINT', shutdown);
  };
  process.on('SIGINT', onSigint);
  for (const w of config.warnings) process.stderr.write(`agent: warning: ${w}\n`);
  for (const note of session.loadNotes) process.stderr.write(`agent: ${redact(note)}\n`);
  const mcp = runtime.mcp;
  if (mcp) {
    mcp.onNotice = (level, text) => {
      if (!quiet) process.stderr.write(`agent: ${level === 'info' ? '' : `${level}: `}${redact(text)}\n`);
    };
    for (const s of mcp.awaitingApproval()) {
      process.stderr.write(
        `agent: MCP server "${s.name}" from ${s.file} was not started: a project's servers run only once approved (${s.changed ? 'its entry changed since you approved it' : 'not approved yet'}). ` +
          `Approve it in the interactive app, or pass --mcp-trust (or set mcp.trustProject in your own ~/.agentrc). It would run: ${redact(s.runs)}\n`,
      );
    }
    mcp.start();
    await mcp.ready(config.mcp.startupMs);
    for (const v of mcp.views())
      if (v.state === 'connecting')
        process.stderr.write(`agent: MCP server "${v.name}" is still connecting after ${config.mcp.startupMs} ms (mcp.startupMs); going on without it\n`);
  }

  const claude = new ClaudeStream(format === 'stream-json' ? writeLine : () => {}, () => session.id, { partialMessages: opts.includePartialMessages === true });
  let started = Date.now();
  let answer: string[] = [];
  let lastRole: 'user' | 'assistant' | undefined;
  // the plans the model presented (ExitPlanMode): printed after the answer, nobody here can approve them
  const plans: string[] = [];
  let errorText: string | undefined;
  let compactions = 0;
  let manualFailed: string | undefined;
  let receipt = '';
  let refused: string | undefined;
  /** What a slash command's model calls spent (the summarizer's, for /compact). */
  let commandUsage = emptyUsage();
  // events: the task list each time a TodoWrite sets it (stream-json carries the call in the assistant message, as Claude Code's does)
  const todosSet = followTodos((todos) => writeLine({ type: 'todos', sessionId: session.id, todos }));
  session.on((e: SessionEvent) => {
    if (format === 'events') {
      writeLine(e);
      todosSet(e);
    } else if (format !== 'text') claude.event(e);
    switch (e.type) {
      case 'message':
        if (e.message.role === 'assistant') {
          // a paused turn's continuation (pause_turn) follows its paused reply: a paragraph of its own, as in the TUI
          if (lastRole === 'assistant' && answer.join('').trim() !== '') answer.push('\n\n');
          answer.push(textOf(e.message));
          plans.push(...plansIn(e.message));
        } else if (e.message.kind === 'normal') answer = [];
        lastRole = e.message.role;
        break;
      case 'error':
        errorText = e.message;
        if (!quiet) process.stderr.write(`agent: ${redact(e.message)}\n`);
        break;
      case 'notice':
        if (!quiet) process.stderr.write(`agent: ${e.level === 'info' ? '' : `${e.level}: `}${redact(e.text)}\n`);
        break;
      case 'retry':
        if (!quiet) process.stderr.write(`agent: ${redact(e.message)} — retrying in ${(e.delayMs / 1000).toFixed(1)}s (${e.attempt}/${e.maxAttempts})\n`);
        break;
      case 'waiting':
        // within seconds, then every half minute: enough to know it is not hung, not a flood
        if (!quiet && (e.seconds === 5 || e.seconds % 30 === 0)) {
          process.stderr.write(
            e.cannotConnect !== undefined
              ? `agent: cannot connect to ${session.currentConfig.provider} (${redact(e.cannotConnect)}), ${e.seconds} s… (retrying)\n`
              : `agent: ${e.stalled ? 'no data' : 'no response yet'} from ${session.currentConfig.provider}, ${e.seconds} s… (timeouts in .agentrc)\n`,
          );
        }
        break;
      case 'prompt_refused':
        refused = e.message;
        break;
      case 'compaction_skipped':
        if (!quiet && e.trigger !== 'auto') process.stderr.write(`agent: compaction (${e.trigger}) skipped: ${redact(e.reason)}\n`);
        break;
      case 'compaction_end':
        if (e.record.status === 'applied') compactions++;
        else if (e.record.trigger === 'manual') manualFailed = e.record.reason ?? e.record.status;
        if (e.record.trigger === 'manual') {
          receipt = receiptText(e.record, true);
          commandUsage = addUsage(commandUsage, e.record.usage);
        }
        // what the compaction did, for the person (compaction/reportText.ts)
        if (format === 'events' && e.record.report && e.record.status === 'applied')
          writeLine({ type: 'compaction_report', id: e.record.id, trigger: e.record.trigger, report: reportLines(e.record) });
        if (!quiet && e.record.trigger !== 'micro' && e.record.trigger !== 'manual') {
          process.stderr.write(
            `agent: compaction (${e.record.trigger}) ${e.record.status}: ${e.record.tokensBefore} → ${e.record.tokensAfter} tokens${e.record.reason ? ` (${e.record.reason})` : ''}\n`,
          );
        }
        break;
      default:
        break;
    }
  });

  /** Claude Code's result for this turn (json, stream-json). */
  const claudeResult = (reason: string, failed: boolean, text: string, usage: Usage, steps: number, extras: Record<string, unknown>): object =>
    claude.result({
      reason,
      failed,
      text,
      usage,
      steps,
      model: session.currentConfig.model.name,
      contextWindow: session.currentConfig.model.contextWindow,
      maxOutputTokens: session.currentConfig.model.maxOutputTokens,
      durationMs: Date.now() - started,
      errors: [errorText, manualFailed].filter((x): x is string => x !== undefined),
      extras: { agent_provider: session.currentConfig.provider, agent_compactions: compactions, ...extras },
    });

  /** A usage error: ends a one-prompt run; with --input-format stream-json, an error result for that line and the session goes on. */
  const refuse = (message: string): number => {
    if (!inputStream) throw new CliError(message, EXIT_USAGE);
    errorText = message;
    writeLine(claudeResult('error', true, '', emptyUsage(), 0, {}));
    return EXIT_USAGE;
  };

  /** One prompt (or slash command), its output and its result; the exit code it earns. */
  const once = async (prompt: string, images: readonly ImageBlock[]): Promise<number> => {
    started = Date.now();
    answer = [];
    errorText = manualFailed = refused = undefined;
    compactions = 0;
    receipt = '';
    commandUsage = emptyUsage();
    claude.beginTurn();
    const custom = findCustom(prompt, runtime.commands);
    if (!custom && images.length === 0 && isCommandLine(prompt, runtime.commands)) {
      let output;
      try {
        output = await runSlash(
          { session, custom: runtime.commands, toolNames: runtime.toolNames, skills: runtime.skills, mcp: runtime.mcp, background: runtime.background },
          prompt,
        );
      } catch (e) {
        if (e instanceof CommandError) return refuse(e.message);
        throw e;
      }
      const textOut = output ? formatCommandOutput(output) : receipt;
      if (format === 'text') {
        if (textOut) process.stdout.write(`${textOut}\n`);
      } else if (format === 'events') {
        writeLine({
          type: 'result',
          sessionId: session.id,
          command: prompt,
          output: output ?? null,
          result: textOut,
          isError: manualFailed !== undefined,
          compactions,
          durationMs: Date.now() - started,
        });
      } else {
        writeLine(claudeResult('end_turn', manualFailed !== undefined, textOut, commandUsage, 0, { agent_command: prompt, agent_output: output ?? null }));
      }
      return manualFailed === undefined ? EXIT_OK : EXIT_RUNTIME;
    }

    // a reader that goes away mid-turn (`| head -1`) ends the turn; the prompt is marked as unanswered, not left dangling
    onClosedStdout(() => {
      stdoutClosed = true;
      session.interrupt();
    });
    let result;
    try {
      const running = custom ? runCustom(session, custom.cmd, custom.args, runtime.toolNames) : session.prompt(prompt, { images });
      turn = running;
      result = await running;
      // ended by a signal: its handler reports and exits
      await untilTerminated();
    } catch (e) {
      if (e instanceof CustomCommandError) return refuse(e.message);
      throw e;
    }
    onClosedStdout(undefined);
    if (stdoutClosed) {
      session.markUnanswered();
      return EXIT_OK;
    }
    // too large for the window: a usage error, nothing was stored or sent
    if (refused !== undefined) return refuse(refused);
    const finalText = [answer.join('').trim(), ...plans].filter((t) => t !== '').join('\n\n');
    // the database refused messages (a full disk): one last try, else the facts and exit 1, never a silent loss
    const unsaved = session.saving.flush() ? undefined : unsavedFacts(session);
    if (unsaved && !quiet) process.stderr.write(`agent: error: ${unsaved}; they are lost now that this run ends.\n`);
    const isError =
      unsaved !== undefined || result.reason === 'error' || result.reason === 'aborted' || result.reason === 'max_steps' || result.reason === 'blocked';
    if (format === 'text') {
      if (finalText) process.stdout.write(`${finalText}\n`);
    } else if (format === 'events') {
      writeLine({
        type: 'result',
        sessionId: session.id,
        result: finalText,
        isError,
        stopReason: result.reason,
        ...(errorText ? { error: errorText } : {}),
        ...(unsaved ? { unsavedMessages: session.saving.unsavedCount } : {}),
        turns: 1,
        steps: result.steps,
        usage: result.usage,
        ...costFields(session.currentConfig.model.name, result.usage),
        compactions,
        model: session.currentConfig.model.name,
        provider: session.currentConfig.provider,
        durationMs: Date.now() - started,
      });
    } else {
      if (unsaved) errorText = `${unsaved}; they are lost`;
      writeLine(
        claudeResult(result.reason, unsaved !== undefined, finalText, result.usage, result.steps, {
          agent_stop_reason: result.reason,
          ...(unsaved ? { agent_unsaved_messages: session.saving.unsavedCount } : {}),
        }),
      );
    }
    return isError ? EXIT_RUNTIME : EXIT_OK;
  };

  try {
    if (format === 'stream-json') claude.init(initFacts(runtime));
    if (!inputStream) return await once(prompt, []);
    // Claude Code's input stream: one user message per line, one turn and one result each, until EOF
    let code = EXIT_OK;
    for await (const line of readInputLines(process.stdin)) {
      if ('error' in line) throw new CliError(line.error, EXIT_USAGE);
      code = Math.max(code, await once(line.text, line.images));
      if (stdoutClosed) break;
    }
    return code;
  } finally {
    process.off('SIGINT', onSigint);
    offSignals();
    // (after a signal every group is stopped: processes/signals.ts)
    if (!terminatingSignal()) {
      if (opts.keepBackground) keepAfterPrint(runtime.background, (t) => process.stderr.write(t));
      else await stopAfterPrint(runtime.background, (t) => process.stderr.write(t));
    }
    runtime.close();
    await runtime.mcp?.close();
  }
}
