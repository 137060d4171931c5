import { world } from './runtime/world.js';
import type { Runtime } from './bootstrap.js';
import { CliError, EXIT_OK, EXIT_RUNTIME, EXIT_USAGE } from './cliError.js';
import type { GlobalOptions } from './cliOptions.js';
import type { Config } from './config/config.js';
import { withoutSecrets } from './config/secrets.js';
import { credentialsFor } from './providerFor.js';
import { configFor } from './runConfig.js';
import { onTerminatingSignals, untilTerminated } from './processes/signals.js';
import { askSkinToneWidth } from './ui/emoji-probe.js';
import { loadTui } from './ui/load.js';
import { ApprovalBridge } from './approvalBridge.js';
import { PendingController } from './pendingController.js';
import { promptHistoryBeside, type PromptHistory } from './session/promptHistory.js';
import { sessionView } from './session/sessionEvents.js';
import type { SessionController } from './sessionController.js';

// The interactive app: the Ink TUI over the live session, through its controller (sessionController.ts).
// A fresh session's first frame is drawn from the configuration alone, and the runtime (the
// database, the session, the tools, the capabilities: most of the program's code to compile) is
// built right after it, behind a PendingController that holds what the person does meanwhile. A
// resumed session's transcript is part of its first frame, so its runtime is built first.

interface Started {
  runtime: Runtime;
  controller: SessionController;
  status: { close: () => void } | undefined;
}

export async function runInteractive(opts: GlobalOptions, words: string[]): Promise<number> {
  if (!world().stdin.isTTY || !world().stdout.isTTY) {
    throw new CliError('the interactive app needs a terminal; for scripts and pipes use `agent -p "<prompt>"`', EXIT_USAGE);
  }
  // The terminal is asked how wide it draws a skin-toned emoji (emoji-probe.ts) first: it answers
  // while the app loads and the session opens, and the first frame waits for no answer.
  const skinTone = askSkinToneWidth();
  const approvals = new ApprovalBridge();
  let runTui: Awaited<ReturnType<typeof loadTui>>['runTui'];
  let pending: PendingController | undefined;
  let built: Promise<Started>;
  try {
    // The app's code loads before the session opens: compiling it (and the layout engine's
    // WebAssembly, in the background) with a small heap is faster than with a resumed history in it.
    ({ runTui } = await loadTui());
    if (typeof opts.resume === 'string' || opts.continue === true) {
      built = Promise.resolve(await start(opts, approvals, words));
    } else {
      // a bad configuration or a missing key is told before anything is drawn
      const config = configFor(opts);
      credentialsFor(config);
      const promptHistory = promptHistoryBeside(config.dbPath);
      pending = pendingFor(config, promptHistory);
      // once runTui has drawn the first frame (it draws before it waits)
      built = new Promise<void>((resolve) => setImmediate(resolve)).then(() => start(opts, approvals, words, { config, promptHistory }));
    }
  } catch (err) {
    // no app will take the terminal: the question stops reading it and leaves raw mode
    skinTone?.cancel();
    throw err;
  }
  const ready = built.then(
    (s) => (pending?.ready(s.controller), s),
    (err: unknown) => {
      pending?.failed();
      throw err;
    },
  );
  // SIGTERM, SIGHUP, SIGINT from outside (Ctrl+C is a key here): the turn is interrupted, the session
  // and the servers closed, every child process group stopped, then the exit (processes/signals.ts)
  const offSignals = onTerminatingSignals(['SIGTERM', 'SIGHUP', 'SIGINT'], async (signal) => {
    const s = await ready.catch(() => undefined);
    if (!s) return;
    s.controller.interrupt();
    const { unsavedFacts } = await import('./unsavedExit.js');
    const facts = unsavedFacts(s.runtime.session);
    if (facts) world().stderr.write(`agent: ${facts}; they are lost: the program was ended by ${signal}.\n`);
    await s.controller.exit();
  });
  let ended: Started | undefined;
  let failure: unknown;
  let resumable: string | undefined;
  try {
    const app = runTui(pending ?? (await ready).controller, { openPicker: opts.resume === true, ...(skinTone ? { skinTone } : {}) });
    // the first frame is drawn: the servers start right after it
    void ready.then(
      (s) => setImmediate(() => s.controller.startMcp()),
      () => {},
    );
    await app;
  } finally {
    // an exit before the runtime was built waits for it (PendingController.exit)
    ended = await ready.catch((err: unknown) => void (failure = err));
    if (ended) {
      // the session the app ended in (a /resume or /clear may have changed it), when it holds anything
      resumable = ended.controller.initialTranscript().length > 0 ? ended.controller.session().id : undefined;
      ended.status?.close();
      await ended.controller.exit();
    }
  }
  if (!ended) {
    offSignals();
    throw failure;
  }
  const { runtime } = ended;
  // ended by a signal: its handler exits once the children are gone
  await untilTerminated();
  const { askAboutBackground } = await import('./background/exitQuestion.js');
  await askAboutBackground(runtime.background);
  offSignals();
  // never "saved" while the database refused messages: retry, write the transcript elsewhere, or quit knowingly
  const { askAboutUnsaved, unsavedFacts } = await import('./unsavedExit.js');
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

/** A fresh session's first frame: the configuration's model and folder, the prompt history, no session id yet. */
function pendingFor(config: Config, promptHistory: PromptHistory): PendingController {
  return new PendingController({
    view: sessionView('', null, config, config.permissions.mode),
    contextWindow: config.model.contextWindow,
    history: promptHistory.all(),
    editorEnv: () => withoutSecrets(config, world().env),
  });
}

/**
 * The runtime and its controller, with what the app is told first: the start's warnings and notes,
 * the prompt given as arguments. `read`: what the first frame read already, which the runtime takes over.
 */
async function start(
  opts: GlobalOptions,
  approvals: ApprovalBridge,
  words: string[],
  read: { config: Config; promptHistory: PromptHistory } | Record<string, never> = {},
): Promise<Started> {
  const [{ createRuntime }, { SessionController }, { statusLineFor }] = await Promise.all([
    import('./bootstrap.js'),
    import('./sessionController.js'),
    import('./statusLine/follow.js'),
  ]);
  const host = { approver: approvals.approver, onProviderWarning: approvals.onProviderWarning, ...read };
  const { runtime } = await createRuntime(opts, host);
  const controller = new SessionController(runtime, approvals);
  // the exit asks whether to stop the background commands still running (askAboutBackground)
  runtime.background.keep = true;
  for (const w of runtime.config.warnings) controller.notify('warning', w);
  for (const note of runtime.session.loadNotes) controller.notify('info', note);
  const first = words.join(' ').trim();
  if (first) controller.submit(first);
  const status = statusLineFor(runtime.config, controller, (line) => controller.showStatusCommand(line));
  return { runtime, controller, status };
}
