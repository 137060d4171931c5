import { world } from '../runtime/world.js';
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
import { approvalsIn, plansIn } from '../plan/plans.js';
import { followTodos } from '../plan/todos.js';
import { untilTerminated } from '../processes/signals.js';
import type { TurnResult } from '../agent/host.js';
import type { SessionEvent } from '../protocol/events.js';
import type { GoalView } from '../protocol/views.js';
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
  /** The plans the model presented (ExitPlanMode) by call id: printed after the answer unless approved (--permission-mode acceptEdits after /plan). */
  private plans = new Map<string, string>();
  private errorText: string | undefined;
  private compactions = 0;
  private manualFailed: string | undefined;
  private receipt = '';
  private refused: string | undefined;
  /** What a slash command's model calls spent (the summarizer's, for /compact). */
  private commandUsage = emptyUsage();
  /** How the last model turn ended: a slash command that prompts the model (`/plan <task>`) reports its turn with it. */
  private lastTurn: TurnResult | undefined;

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
    const goal = this.runtime.goals.of(session.id);
    this.runtime.goals.subscribe((id, view) => {
      if (id !== session.id) return;
      if (format === 'events') this.writeLine({ type: 'goal', sessionId: id, goal: view ?? null });
      else if (format === 'stream-json') this.claude.goal(view ?? null);
    });
    session.on((e: SessionEvent) => {
      goal?.observe(e);
      if (format === 'events') {
        this.writeLine(e);
        todosSet(e);
      } else if (format !== 'text') this.claude.event(e);
      this.gather(e);
    });
  }

  /** One JSON line on stdout, keys redacted; nothing once the reader is gone. */
  readonly writeLine = (obj: unknown): void => {
    if (!this.stdoutClosed) world().stdout.write(`${redact(JSON.stringify(obj))}\n`);
  };

  private note(text: string): void {
    if (!this.quiet) world().stderr.write(`agent: ${text}\n`);
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
          for (const p of plansIn(e.message)) this.plans.set(p.id, p.plan);
        } else {
          for (const id of approvalsIn(e.message)) this.plans.delete(id);
          if (e.message.kind === 'normal') this.answer = [];
        }
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
      case 'turn_end':
        this.lastTurn = { reason: e.reason, steps: e.steps, usage: e.usage, text: e.text };
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
      if (text) world().stdout.write(`${text}\n`);
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
    this.plans = new Map();
    this.errorText = this.manualFailed = this.refused = undefined;
    this.compactions = 0;
    this.receipt = '';
    this.commandUsage = emptyUsage();
    this.lastTurn = undefined;
    this.claude.beginTurn();
    const custom = findCustom(prompt, this.runtime.commands, this.runtime.slash);
    if (!custom && images.length === 0 && isCommandLine(prompt, this.runtime.commands, this.runtime.slash)) return this.command(prompt);
    return this.turn(prompt, images, custom);
  }

  /** The message of the goal's next turn, once the last one ended (the check runs first); undefined when none is due. */
  private goalNext(): Promise<string | undefined> {
    const { session, goals } = this.runtime;
    return this.stdoutClosed ? Promise.resolve(undefined) : goals.next(session.id, session.permissions().mode === 'plan');
  }

  /** A slash command: its output, or the receipt of the compaction it ran. */
  private async command(line: string): Promise<number> {
    const { session, commands, toolNames, slash, sandbox } = this.runtime;
    let output;
    try {
      output = await runSlash({ session, custom: commands, toolNames, more: slash, sandbox }, line);
    } catch (e) {
      if (e instanceof CommandError) return this.refuse(e.message);
      throw e;
    }
    // a command that sent the model a prompt (`/plan <task>`): its result is that turn's, the answer printed
    if (!output && this.lastTurn) {
      // as after a turn of the prompt's own: a background compaction that is due is swapped in before the run ends
      if (!this.opts.inputStream) await session.settleCompaction();
      return this.turnResult(this.lastTurn);
    }
    const textOut = output ? formatCommandOutput(output) : this.receipt;
    // /goal set or resumed one: its turns follow, and their result is this line's
    const goalPrompt = await this.goalNext();
    if (goalPrompt !== undefined) {
      if (textOut) this.note(textOut);
      return this.turn(goalPrompt, [], undefined);
    }
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
    // an active goal goes on, turn after turn, until its check passes, a budget ends it or a turn fails
    let turns = 1;
    let { usage, steps } = result;
    for (let next = await this.goalNext(); next !== undefined && !this.stdoutClosed; next = await this.goalNext()) {
      const running = session.prompt(next);
      this.running = running;
      result = await running;
      await untilTerminated();
      turns++;
      usage = addUsage(usage, result.usage);
      steps += result.steps;
    }
    const goal = this.runtime.goals.of(session.id)?.view();
    if (goal && turns > 1 && goal.status !== 'active') this.note(`goal ${goal.status.replace('_', '-')}: ${goal.reason ?? ''}`);
    onClosedStdout(undefined);
    if (this.stdoutClosed) {
      session.markUnanswered();
      return EXIT_OK;
    }
    // one prompt and the run ends: a background compaction that is due is swapped in now, so the next run starts compacted
    if (!this.opts.inputStream) await session.settleCompaction();
    return this.turnResult(result, { turns, steps, usage, goal });
  }

  /** Prints a model turn's answer and result (`run`: a goal's turns summed, the goal); the exit code it earns. */
  private turnResult(result: TurnResult, run: { turns: number; steps: number; usage: Usage; goal?: GoalView | undefined } = { turns: 1, ...result }): number {
    const { session } = this.runtime;
    const { turns, steps, usage, goal } = run;
    // a goal that ended (its check passed, or a budget) ends the run well, whatever its last turn's step count
    const goalEnded = goal !== undefined && (goal.status === 'complete' || goal.status === 'budget_limited');
    // too large for the window: a usage error, nothing was stored or sent
    if (this.refused !== undefined) return this.refuse(this.refused);
    const finalText = [this.answer.join('').trim(), ...this.plans.values()].filter((t) => t !== '').join('\n\n');
    // the database refused messages (a full disk): one last try, else the facts and exit 1, never a silent loss
    const unsaved = session.saving.flush() ? undefined : unsavedFacts(session);
    if (unsaved) this.note(`error: ${unsaved}; they are lost now that this run ends.`);
    const isError =
      unsaved !== undefined ||
      result.reason === 'error' ||
      result.reason === 'aborted' ||
      (result.reason === 'max_steps' && !goalEnded) ||
      result.reason === 'blocked';
    const model = session.currentConfig.model.name;
    const fields = {
      result: finalText,
      isError,
      stopReason: result.reason,
      ...(this.errorText ? { error: this.errorText } : {}),
      ...(unsaved ? { unsavedMessages: session.saving.unsavedCount } : {}),
      turns,
      steps,
      usage,
      ...costFields(model, usage),
      ...(goal ? { goal } : {}),
      compactions: this.compactions,
      model,
      provider: session.currentConfig.provider,
    };
    this.printResult(finalText, fields, () => {
      if (unsaved) this.errorText = `${unsaved}; they are lost`;
      return this.claudeResult(result.reason, unsaved !== undefined, finalText, usage, steps, {
        agent_stop_reason: result.reason,
        ...(goal ? { agent_goal: goal } : {}),
        ...(unsaved ? { agent_unsaved_messages: session.saving.unsavedCount } : {}),
      });
    });
    return isError ? EXIT_RUNTIME : EXIT_OK;
  }
}
