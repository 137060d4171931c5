import type { Runtime } from '../bootstrap.js';
import { onClosedStdout } from '../closedPipe.js';
import { CliError, EXIT_OK, EXIT_RUNTIME, EXIT_USAGE } from '../cliError.js';
import type { GlobalOptions } from '../cliOptions.js';
import { CommandError, findCustom, isCommandLine, runSlash } from '../commands/registry.js';
import { CustomCommandError, runCustom } from '../commands/customRun.js';
import { formatCommandOutput } from '../commands/format.js';
import { receiptText, reportLines } from '../compaction/reportText.js';
import { addUsage, emptyUsage, textOf, type ImageBlock, type Usage } from '../llm/messages.js';
import { redact } from '../log.js';
import { plansIn } from '../plan/plans.js';
import { followTodos } from '../plan/todos.js';
import { untilTerminated } from '../processes/signals.js';
import type { SessionEvent } from '../protocol/events.js';
import { costBreakdown, type CostBreakdown } from '../session/pricing.js';
import { unsavedFacts } from '../unsavedExit.js';
import { ClaudeStream } from './claudeStream.js';

// Print mode's turns: the session's events gathered into one turn's answer and facts, and the
// turn (or slash command) printed as text, as Claude Code's result (json, stream-json through
// claudeStream.ts) or as this project's events, one per line. runPrint (src/print.ts) starts the
// run and feeds it prompts: one, or one per line of --input-format stream-json.

export interface PrintTurnsOptions {
  format: GlobalOptions['outputFormat'];
  /** Each line of stdin is a turn: a usage error ends that line's turn with an error result, not the run. */
  inputStream: boolean;
  /** --include-partial-messages: stream-json's stream_event lines. */
  partialMessages: boolean;
}

/** The turn's estimated cost, cache reads and writes priced apart (absent for a model without a known price). */
function costFields(model: string, usage: Usage): { costUsd?: number; cost?: CostBreakdown } {
  const cost = costBreakdown(model, usage);
  return cost ? { costUsd: cost.total, cost } : {};
}

export class PrintTurns {
  /** The turn that runs, if one does: a signal's shutdown waits for it to store how it ended. */
  running: Promise<unknown> | undefined;
  /** Set once the reader closed stdout (`| head -1`): nothing more is written there. */
  stdoutClosed = false;
  readonly claude: ClaudeStream;
  /** The streams carry everything: notices on stderr would only repeat them. */
  private readonly quiet: boolean;
  private started = Date.now();
  private answer: string[] = [];
  private lastRole: 'user' | 'assistant' | undefined;
  /** The plans the model presented (ExitPlanMode): printed after the answer, nobody here can approve them. */
  private plans: string[] = [];
  private errorText: string | undefined;
  private compactions = 0;
  private manualFailed: string | undefined;
  private receipt = '';
  private refused: string | undefined;
  /** What a slash command's model calls spent (the summarizer's, for /compact). */
  private commandUsage = emptyUsage();

  constructor(
    private readonly runtime: Runtime,
    private readonly opts: PrintTurnsOptions,
  ) {
    this.quiet = opts.format === 'stream-json' || opts.format === 'events';
    this.claude = new ClaudeStream(opts.format === 'stream-json' ? this.writeLine : () => {}, () => runtime.session.id, {
      partialMessages: opts.partialMessages,
    });
  }

  /** Follows the session's events from now on: printed as they come (events, stream-json), gathered into the turn's answer. */
  listen(): void {
    const { session } = this.runtime;
    const { format } = this.opts;
    // events: the task list each time a TodoWrite sets it (stream-json carries the call in the assistant message, as Claude Code's does)
    const todosSet = followTodos((todos) => this.writeLine({ type: 'todos', sessionId: session.id, todos }));
    session.on((e: SessionEvent) => {
      if (format === 'events') {
        this.writeLine(e);
        todosSet(e);
      } else if (format !== 'text') this.claude.event(e);
      this.gather(e);
    });
  }

  /** One JSON line on stdout, keys redacted; nothing once the reader is gone. */
  readonly writeLine = (obj: unknown): void => {
    if (!this.stdoutClosed) process.stdout.write(`${redact(JSON.stringify(obj))}\n`);
  };

  private note(text: string): void {
    if (!this.quiet) process.stderr.write(`agent: ${text}\n`);
  }

  /** A notice on stderr (the session's, an MCP server's), its level named unless info; none where the streams carry everything. */
  notice(level: 'info' | 'warning' | 'error', text: string): void {
    this.note(`${level === 'info' ? '' : `${level}: `}${redact(text)}`);
  }

  /** What an event adds to the turn's answer and facts, and the notices it prints on stderr. */
  private gather(e: SessionEvent): void {
    switch (e.type) {
      case 'message':
        if (e.message.role === 'assistant') {
          // a paused turn's continuation (pause_turn) follows its paused reply: a paragraph of its own, as in the TUI
          if (this.lastRole === 'assistant' && this.answer.join('').trim() !== '') this.answer.push('\n\n');
          this.answer.push(textOf(e.message));
          this.plans.push(...plansIn(e.message));
        } else if (e.message.kind === 'normal') this.answer = [];
        this.lastRole = e.message.role;
        break;
      case 'error':
        this.errorText = e.message;
        this.note(redact(e.message));
        break;
      case 'notice':
        this.notice(e.level, e.text);
        break;
      case 'retry':
        this.note(`${redact(e.message)} — retrying in ${(e.delayMs / 1000).toFixed(1)}s (${e.attempt}/${e.maxAttempts})`);
        break;
      case 'waiting': {
        // within seconds, then every half minute: enough to know it is not hung, not a flood
        if (e.seconds !== 5 && e.seconds % 30 !== 0) break;
        const provider = this.runtime.session.currentConfig.provider;
        this.note(
          e.cannotConnect !== undefined
            ? `cannot connect to ${provider} (${redact(e.cannotConnect)}), ${e.seconds} s… (retrying)`
            : `${e.stalled ? 'no data' : 'no response yet'} from ${provider}, ${e.seconds} s… (timeouts in .agentrc)`,
        );
        break;
      }
      case 'prompt_refused':
        this.refused = e.message;
        break;
      case 'compaction_skipped':
        if (e.trigger !== 'auto') this.note(`compaction (${e.trigger}) skipped: ${redact(e.reason)}`);
        break;
      case 'compaction_end': {
        const { record } = e;
        if (record.status === 'applied') this.compactions++;
        else if (record.trigger === 'manual') this.manualFailed = record.reason ?? record.status;
        if (record.trigger === 'manual') {
          this.receipt = receiptText(record, true);
          this.commandUsage = addUsage(this.commandUsage, record.usage);
        }
        // what the compaction did, for the person (compaction/reportText.ts)
        if (this.opts.format === 'events' && record.report && record.status === 'applied')
          this.writeLine({ type: 'compaction_report', id: record.id, trigger: record.trigger, report: reportLines(record) });
        if (record.trigger !== 'micro' && record.trigger !== 'manual')
          this.note(
            `compaction (${record.trigger}) ${record.status}: ${record.tokensBefore} → ${record.tokensAfter} tokens${record.reason ? ` (${record.reason})` : ''}`,
          );
        break;
      }
      default:
        break;
    }
  }

  /** Claude Code's result for this turn (json, stream-json). */
  private claudeResult(reason: string, failed: boolean, text: string, usage: Usage, steps: number, extras: Record<string, unknown>): object {
    const { currentConfig } = this.runtime.session;
    return this.claude.result({
      reason,
      failed,
      text,
      usage,
      steps,
      model: currentConfig.model.name,
      contextWindow: currentConfig.model.contextWindow,
      maxOutputTokens: currentConfig.model.maxOutputTokens,
      durationMs: Date.now() - this.started,
      errors: [this.errorText, this.manualFailed].filter((x): x is string => x !== undefined),
      extras: { agent_provider: currentConfig.provider, agent_compactions: this.compactions, ...extras },
    });
  }

  /**
   * Prints how a turn or command ended, in the run's format: its text, this project's result
   * event (`fields` between its session id and duration), or Claude Code's result (built only then).
   */
  private printResult(text: string, fields: Record<string, unknown>, claudeResult: () => object): void {
    if (this.opts.format === 'text') {
      if (text) process.stdout.write(`${text}\n`);
    } else if (this.opts.format === 'events') {
      this.writeLine({ type: 'result', sessionId: this.runtime.session.id, ...fields, durationMs: Date.now() - this.started });
    } else this.writeLine(claudeResult());
  }

  /** A usage error: ends a one-prompt run; with --input-format stream-json, an error result for that line and the session goes on. */
  private refuse(message: string): number {
    if (!this.opts.inputStream) throw new CliError(message, EXIT_USAGE);
    this.errorText = message;
    this.writeLine(this.claudeResult('error', true, '', emptyUsage(), 0, {}));
    return EXIT_USAGE;
  }

  /** One prompt (or slash command), its output and its result; the exit code it earns. */
  async once(prompt: string, images: readonly ImageBlock[]): Promise<number> {
    this.started = Date.now();
    this.answer = [];
    this.plans = [];
    this.errorText = this.manualFailed = this.refused = undefined;
    this.compactions = 0;
    this.receipt = '';
    this.commandUsage = emptyUsage();
    this.claude.beginTurn();
    const custom = findCustom(prompt, this.runtime.commands);
    if (!custom && images.length === 0 && isCommandLine(prompt, this.runtime.commands)) return this.command(prompt);
    return this.turn(prompt, images, custom);
  }

  /** A slash command: its output, or the receipt of the compaction it ran. */
  private async command(line: string): Promise<number> {
    const { session, commands, toolNames, skills, mcp, background } = this.runtime;
    let output;
    try {
      output = await runSlash({ session, custom: commands, toolNames, skills, mcp, background }, line);
    } catch (e) {
      if (e instanceof CommandError) return this.refuse(e.message);
      throw e;
    }
    const textOut = output ? formatCommandOutput(output) : this.receipt;
    const failed = this.manualFailed !== undefined;
    this.printResult(textOut, { command: line, output: output ?? null, result: textOut, isError: failed, compactions: this.compactions }, () =>
      this.claudeResult('end_turn', failed, textOut, this.commandUsage, 0, { agent_command: line, agent_output: output ?? null }),
    );
    return failed ? EXIT_RUNTIME : EXIT_OK;
  }

  /** A turn of the model (or a custom command's), its answer and its result. */
  private async turn(prompt: string, images: readonly ImageBlock[], custom: ReturnType<typeof findCustom>): Promise<number> {
    const { session, toolNames } = this.runtime;
    // a reader that goes away mid-turn (`| head -1`) ends the turn; the prompt is marked as unanswered, not left dangling
    onClosedStdout(() => {
      this.stdoutClosed = true;
      session.interrupt();
    });
    let result;
    try {
      const running = custom ? runCustom(session, custom.cmd, custom.args, toolNames) : session.prompt(prompt, { images });
      this.running = running;
      result = await running;
      // ended by a signal: its handler reports and exits
      await untilTerminated();
    } catch (e) {
      if (e instanceof CustomCommandError) return this.refuse(e.message);
      throw e;
    }
    onClosedStdout(undefined);
    if (this.stdoutClosed) {
      session.markUnanswered();
      return EXIT_OK;
    }
    // one prompt and the run ends: a background compaction that is due is swapped in now, so the next run starts compacted
    if (!this.opts.inputStream) await session.settleCompaction();
    // too large for the window: a usage error, nothing was stored or sent
    if (this.refused !== undefined) return this.refuse(this.refused);
    const finalText = [this.answer.join('').trim(), ...this.plans].filter((t) => t !== '').join('\n\n');
    // the database refused messages (a full disk): one last try, else the facts and exit 1, never a silent loss
    const unsaved = session.saving.flush() ? undefined : unsavedFacts(session);
    if (unsaved) this.note(`error: ${unsaved}; they are lost now that this run ends.`);
    const isError =
      unsaved !== undefined || result.reason === 'error' || result.reason === 'aborted' || result.reason === 'max_steps' || result.reason === 'blocked';
    const model = session.currentConfig.model.name;
    const fields = {
      result: finalText,
      isError,
      stopReason: result.reason,
      ...(this.errorText ? { error: this.errorText } : {}),
      ...(unsaved ? { unsavedMessages: session.saving.unsavedCount } : {}),
      turns: 1,
      steps: result.steps,
      usage: result.usage,
      ...costFields(model, result.usage),
      compactions: this.compactions,
      model,
      provider: session.currentConfig.provider,
    };
    this.printResult(finalText, fields, () => {
      if (unsaved) this.errorText = `${unsaved}; they are lost`;
      return this.claudeResult(result.reason, unsaved !== undefined, finalText, result.usage, result.steps, {
        agent_stop_reason: result.reason,
        ...(unsaved ? { agent_unsaved_messages: session.saving.unsavedCount } : {}),
      });
    });
    return isError ? EXIT_RUNTIME : EXIT_OK;
  }
}
