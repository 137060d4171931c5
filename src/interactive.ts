import { world } from './runtime/world.js';
import { createRuntime, type Runtime } from './bootstrap.js';
import { CliError, EXIT_OK, EXIT_RUNTIME, EXIT_USAGE } from './cliError.js';
import type { GlobalOptions } from './cliOptions.js';
import { onTerminatingSignals, untilTerminated } from './processes/signals.js';
import { askAboutUnsaved, unsavedFacts } from './unsavedExit.js';
import { askSkinToneWidth } from './ui/emoji-probe.js';
import { loadTui } from './ui/load.js';
import { statusLineFor } from './statusLine/follow.js';
import { ApprovalBridge } from './approvalBridge.js';
import { askAboutBackground } from './background/exitQuestion.js';
import { SessionController } from './sessionController.js';

// The interactive app: the Ink TUI over the live session, through its controller (sessionController.ts).

export async function runInteractive(opts: GlobalOptions, words: string[]): Promise<number> {
  if (!world().stdin.isTTY || !world().stdout.isTTY) {
    throw new CliError('the interactive app needs a terminal; for scripts and pipes use `agent -p "<prompt>"`', EXIT_USAGE);
  }
  // The terminal is asked how wide it draws a skin-toned emoji (emoji-probe.ts) first: it answers
  // while the app loads and the session opens, and the first frame waits for no answer.
  const skinTone = askSkinToneWidth();
  // The app's code loads before the session opens: compiling it (and the layout engine's
  // WebAssembly, in the background) with a small heap is faster than with a resumed history in it.
  const approvals = new ApprovalBridge();
  let runTui: Awaited<ReturnType<typeof loadTui>>['runTui'];
  let runtime: Runtime;
  try {
    ({ runTui } = await loadTui());
    ({ runtime } = await createRuntime(opts, { approver: approvals.approver, onProviderWarning: approvals.onProviderWarning }));
  } catch (err) {
    // no app will take the terminal: the question stops reading it and leaves raw mode
    skinTone?.cancel();
    throw err;
  }
  const controller = new SessionController(runtime, approvals);
  // the exit asks whether to stop the background commands still running (askAboutBackground)
  runtime.background.keep = true;
  for (const w of runtime.config.warnings) controller.notify('warning', w);
  for (const note of runtime.session.loadNotes) controller.notify('info', note);
  const first = words.join(' ').trim();
  if (first) controller.submit(first);
  // runTui draws the first frame before it waits; the servers start right after it
  setImmediate(() => controller.startMcp());
  const status = statusLineFor(runtime.config, controller, (line) => controller.showStatusCommand(line));
  // SIGTERM, SIGHUP, SIGINT from outside (Ctrl+C is a key here): the turn is interrupted, the session
  // and the servers closed, every child process group stopped, then the exit (processes/signals.ts)
  const offSignals = onTerminatingSignals(['SIGTERM', 'SIGHUP', 'SIGINT'], async (signal) => {
    controller.interrupt();
    const facts = unsavedFacts(runtime.session);
    if (facts) world().stderr.write(`agent: ${facts}; they are lost: the program was ended by ${signal}.\n`);
    await controller.exit();
  });
  let resumable: string | undefined;
  try {
    await runTui(controller, { openPicker: opts.resume === true, ...(skinTone ? { skinTone } : {}) });
  } finally {
    // the session the app ended in (a /resume or /clear may have changed it), when it holds anything
    resumable = controller.initialTranscript().length > 0 ? controller.session().id : undefined;
    status?.close();
    await controller.exit();
  }
  // ended by a signal: its handler exits once the children are gone
  await untilTerminated();
  await askAboutBackground(runtime.background);
  offSignals();
  // never "saved" while the database refused messages: retry, write the transcript elsewhere, or quit knowingly
  const session = runtime.session;
  const outcome = session.saving.unsavedCount > 0 ? await askAboutUnsaved(session) : 'saved';
  const facts = unsavedFacts(session);
  runtime.close();
  if (outcome === 'quit') {
    world().stderr.write(`agent: ${facts}; quit without them.\n`);
    return EXIT_RUNTIME;
  }
  if (outcome === 'written') {
    world().stdout.write(`Session ${session.id}: the database lacks its last messages; the whole transcript is in the file written above.\n`);
    return EXIT_OK;
  }
  // as Codex does: where the conversation went and how to come back to it
  if (resumable) world().stdout.write(`Session ${resumable} saved. To continue it: agent --resume ${resumable}\n`);
  return EXIT_OK;
}
