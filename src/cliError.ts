// The CLI's exit codes and the error it reports without a stack trace. Kept apart from
// cli.ts so the modules cli.ts loads (print, interactive, bootstrap, sessionsCommand) can
// throw it without importing the entry point back.

export const EXIT_OK = 0;
export const EXIT_RUNTIME = 1;
export const EXIT_USAGE = 2;

/** An error the CLI reports without a stack trace, with its exit code. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number = EXIT_RUNTIME,
  ) {
    super(message);
  }
}
