import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { handleClosedStdout } from './closedPipe.js';
import pkg from '../package.json' with { type: 'json' };
import { CliError, EXIT_OK, EXIT_RUNTIME, EXIT_USAGE } from './cliError.js';
import type { GlobalOptions } from './cliOptions.js';
import { editDistance } from './editDistance.js';
import { inWorld, processWorld, type World, world } from './runtime/world.js';

export { processWorld };
export type { World };

// The entry point. Only commander is imported eagerly: `--version` and `--help` must stay
// fast, so config, the SDKs, ink and the tokenizer load inside the actions that need them.

export function version(): string {
  // inlined by the bundler: no file to find at run time
  return pkg.version;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive whole number');
  return n;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function buildProgram(run: (task: () => Promise<number>) => void): Command {
  const program = new Command('agent')
    .description('A terminal coding agent whose long sessions never fall apart.')
    .version(version(), '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show this help')
    .argument('[prompt...]', 'a first prompt (interactive) or the prompt of --print')
    .option('-p, --print [prompt]', 'run one turn without the TUI and print the answer (the prompt may also come on stdin)')
    .addOption(
      new Option('--output-format <format>', "print-mode output: text, Claude Code's json result or stream-json messages, or this project's events")
        .choices(['text', 'json', 'stream-json', 'events'])
        .default('text'),
    )
    .addOption(
      new Option('--input-format <format>', "print-mode input: text, or stream-json (Claude Code's user messages, one JSON line per turn)").choices([
        'text',
        'stream-json',
      ]),
    )
    .option('--verbose', "accepted for Claude Code's `-p --output-format stream-json --verbose` (the stream is the same)")
    .option('--include-partial-messages', "stream-json: also each reply as it streams (Claude Code's stream_event lines)")
    .option('-m, --model <name>', 'model to use (the provider is inferred from the name when not given)')
    .addOption(new Option('--provider <name>', 'provider').choices(['anthropic', 'openai']))
    .option('--base-url <url>', 'API base URL (an OpenAI-compatible server: http://host:port/v1)')
    .option('-r, --resume [id]', 'resume a session by id (or pick one when no id is given)')
    .option('-c, --continue', 'continue the latest session of this directory')
    .option('--fork', 'with --resume <id> or --continue: continue a copy of the session under a new id (e.g. while another agent writes it)')
    .option('--add-dir <dir>', 'let FileRead, Grep and Glob read this directory too without asking (repeatable)', collect, [])
    .option('--db <path>', 'database file (default $XDG_DATA_HOME/agent/agent.db; also AGENT_DB)')
    .addOption(
      new Option(
        '--permission-mode <mode>',
        "ask before Bash and edits, accept edits (Bash still asks), plan (only reads run), allow everything, or deny what needs approval; Claude Code's default, bypassPermissions and dontAsk work too",
      ).choices(['ask', 'acceptEdits', 'plan', 'allow', 'deny', 'default', 'bypassPermissions', 'dontAsk']),
    )
    .option('--max-steps <n>', 'model calls per turn before stopping', positiveInt)
    .option('--allowed-tools <tools>', 'tools that run without asking, comma-separated (e.g. "Bash,mcp__github__*"; repeatable)', collect, [])
    .option('--mcp-trust', "run the project's MCP servers (.mcp.json) without asking")
    .option(
      '--debug [file]',
      'write a debug log (default: agent-debug.log next to the database); --debug=full (or full:<file>) logs message and tool contents too',
    )
    .option('--hooks-trust', "run the hooks in this project's .agentrc without asking (print mode cannot ask; ~/.agentrc hooks always run)")
    .option('--keep-background', 'print mode: leave the background commands still running after the result running (detached; their pids on stderr)')
    .showSuggestionAfterError()
    .action((promptWords: string[], opts: GlobalOptions) => {
      run(async () => {
        checkSessionFlags(opts);
        if (opts.print !== undefined && opts.print !== false) {
          const { runPrint } = await import('./print.js');
          return runPrint(opts, promptWords);
        }
        const { runInteractive } = await import('./interactive.js');
        return runInteractive(opts, promptWords);
      });
    });

  program
    .command('acp')
    .description('serve the Agent Client Protocol on stdin/stdout, for editors (Zed, JetBrains, Neovim, Emacs)')
    .action(() => {
      run(async () => (await import('./acp/agent.js')).runAcp(program.opts<GlobalOptions>()));
    });

  program
    .command('doctor')
    .description('check the set-up: Node.js, npm, SQLite, ripgrep, the database folder, config files, keys (never printed), MCP servers')
    .option('--json', 'print the report as JSON')
    .option('--db <path>', 'database file')
    .action((opts: { json?: boolean; db?: string }) => {
      run(async () => (await import('./doctor/doctor.js')).runDoctor({ ...program.opts<GlobalOptions>(), ...opts }));
    });

  const sessions = withSessionsOptions(program.command('sessions').description('list, show, export, search and remove stored sessions'))
    .option('--cwd <dir>', 'only sessions of this directory')
    .option('-n, --limit <n>', 'how many to list', positiveInt, 50)
    .argument('[list]', 'list the sessions (what `agent sessions` does without a subcommand)');
  sessions.action((sub: string | undefined, opts: { db?: string; cwd?: string; limit: number }) => {
    run(async () => {
      if (sub !== undefined && sub !== 'list') throw new CliError(unknownSubcommand(sub), EXIT_USAGE);
      return (await import('./sessionsCommand.js')).listSessionsCommand({ ...program.opts<GlobalOptions>(), ...opts });
    });
  });
  /** A subcommand of `sessions`: the shared flags, and its options merged over the global and `sessions` ones. */
  const subcommand = <O extends object>(
    spec: string,
    description: string,
    configure: (c: Command) => Command,
    call: (m: SessionsModule, args: string[], opts: GlobalOptions & O) => Promise<number>,
  ): void => {
    withSessionsOptions(configure(sessions.command(spec).description(description))).action((...args: unknown[]) => {
      const opts = args[args.length - 2] as O;
      const positional = args.slice(0, -2).map((a) => (Array.isArray(a) ? a.join(' ') : String(a)));
      run(async () => call(await import('./sessionsCommand.js'), positional, { ...program.opts<GlobalOptions>(), ...sessions.opts(), ...opts }));
    });
  };
  subcommand<{ archived?: boolean; children?: boolean; spilled?: boolean }>(
    'show <id>',
    'print a session transcript',
    (c) =>
      c
        .option('--archived', 'include what compaction archived, marked as such')
        .option('--children', "print its sub-agents' transcripts too")
        .option('--spilled', 'print spilled tool outputs and @mentioned files whole instead of their preview'),
    (m, [id], opts) => m.showSessionCommand(id!, opts),
  );
  subcommand<{ format: 'md' | 'jsonl' }>(
    'export <id>',
    'export a session (archived messages included)',
    (c) => c.addOption(new Option('--format <format>', 'md or jsonl').choices(['md', 'jsonl']).default('md')),
    (m, [id], opts) => m.exportSessionCommand(id!, opts),
  );
  subcommand<{ yes?: boolean }>(
    'rm <id>',
    'delete a session and everything it archived',
    (c) => c.option('-y, --yes', 'do not ask for confirmation'),
    (m, [id], opts) => m.removeSessionCommand(id!, opts),
  );
  subcommand<{ session?: string; limit: number }>(
    'search <query...>',
    'full-text search over what compaction archived, across sessions',
    (c) => c.option('--session <id>', 'only this session (and its sub-agents)').option('-n, --limit <n>', 'how many hits', positiveInt, 20),
    (m, [query], opts) => m.searchSessionsCommand(query!, opts),
  );
  return program;
}

type SessionsModule = typeof import('./sessionsCommand.js');

/** The flags `agent sessions` and each of its subcommands take (one definition). */
function withSessionsOptions(c: Command): Command {
  return c.option('--db <path>', 'database file');
}

const SESSIONS_SUBCOMMANDS = ['list', 'show', 'export', 'search', 'rm'];

function unknownSubcommand(word: string): string {
  const close = SESSIONS_SUBCOMMANDS.filter((c) => editDistance(word, c) <= 2);
  return `unknown subcommand "sessions ${word}"${close.length > 0 ? ` (did you mean ${close.join(' or ')}?)` : ''}; the subcommands are ${SESSIONS_SUBCOMMANDS.join(', ')}`;
}

/** Flags that contradict each other are a usage error before anything is opened. */
function checkSessionFlags(opts: GlobalOptions): void {
  if (opts.resume !== undefined && opts.resume !== false && opts.continue) {
    throw new CliError('--resume and --continue both name the session to open: give one of them', EXIT_USAGE);
  }
  if (opts.fork && typeof opts.resume !== 'string' && !opts.continue) {
    throw new CliError('--fork copies a stored session: use it with --resume <id> or --continue', EXIT_USAGE);
  }
  if (opts.inputFormat === 'stream-json' && (opts.print === undefined || opts.print === false)) {
    throw new CliError('--input-format stream-json is for print mode: use it with -p and --output-format stream-json', EXIT_USAGE);
  }
}

/**
 * A reader that stops early (`agent sessions show … | head`) closes the pipe: that is the
 * reader's choice, not an error, so the program ends quietly instead of with a stack trace.
 */
export function exitQuietlyOnClosedPipe(stream: NodeJS.WriteStream, exit: (code: number) => void = world().exit): void {
  const w = world();
  stream.on('error', (e: NodeJS.ErrnoException) =>
    inWorld(w, () => {
      if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED') throw e;
      // print mode ends its turn first (closedPipe.ts); it exits when the turn is over
      if (stream === w.stdout && handleClosedStdout()) return;
      exit(EXIT_OK);
    }),
  );
}

/**
 * Runs the CLI in `io` (its environment, working directory, streams, signals and exit: the
 * process's own from bin/agent.js, a test's in the in-process harness); resolves to the exit code.
 */
export function main(argv: string[], io: World): Promise<number> {
  return inWorld(io, () => run(argv));
}

async function run(argv: string[]): Promise<number> {
  const io = world();
  exitQuietlyOnClosedPipe(io.stdout);
  exitQuietlyOnClosedPipe(io.stderr);
  let task: (() => Promise<number>) | undefined;
  const program = buildProgram((t) => {
    task = t;
  });
  const output = { writeOut: (text: string) => void io.stdout.write(text), writeErr: (text: string) => void io.stderr.write(text) };
  program.exitOverride().configureOutput(output);
  program.commands.forEach((c) => {
    c.exitOverride().configureOutput(output);
    c.commands.forEach((s) => s.exitOverride().configureOutput(output));
  });
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      // help and version end with exit code 0; everything else commander rejects is a usage error
      return e.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    throw e;
  }
  if (!task) return EXIT_OK;
  try {
    return await task();
  } catch (e) {
    return reportFatal(e);
  }
}

async function reportFatal(e: unknown): Promise<number> {
  const { redact } = await import('./log.js');
  const { ConfigError } = await import('./config/config.js');
  const { stderr, env } = world();
  if (e instanceof CliError) {
    stderr.write(`agent: ${redact(e.message)}\n`);
    return e.exitCode;
  }
  if (e instanceof ConfigError) {
    stderr.write(`agent: ${redact(e.message)}\n`);
    return EXIT_USAGE;
  }
  const err = e instanceof Error ? e : new Error(String(e));
  stderr.write(`agent: ${redact(err.message)}\n`);
  if (env['AGENT_DEBUG_STACK']) stderr.write(`${redact(err.stack ?? '')}\n`);
  return EXIT_RUNTIME;
}
