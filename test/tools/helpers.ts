import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AnyTool, CallGrant, Tool, ToolContext, ToolOutput, ToolSession } from '../../src/tools/types.js';
import { tempDir } from '../tempDirs.js';

/** A temporary directory holding the given files (removed after the test file). */
export function tree(files: Record<string, string | Buffer> = {}): string {
  const root = tempDir('agent-tools-');
  write(root, files);
  return root;
}

export function write(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const p = join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
}

/** Sets a file's modification time (seconds ago). */
export function age(root: string, rel: string, secondsAgo: number): void {
  const t = Date.now() / 1000 - secondsAgo;
  utimesSync(join(root, rel), t, t);
}

export function ctx(cwd: string, extra: Partial<ToolContext> = {}): ToolContext {
  return { cwd, signal: new AbortController().signal, ...extra };
}

/** A context that stands for a session lending `lent` to the tools: a tool of `perSession` run with it (or a copy) is built over `lent`. */
export function sessionCtx(cwd: string, lent: ToolSession, extra: Partial<ToolContext> = {}): ToolContext & { lent: ToolSession } {
  return { ...ctx(cwd, extra), lent };
}

/** A tool built, at each call, for the session its context stands for (sessionCtx; none for a plain ctx): one tool for tests of many sessions. */
export function perSession<I>(make: (lent: ToolSession) => Tool<I>): AnyTool {
  const built = (c: ToolContext): Tool<I> => make('lent' in c ? (c.lent as ToolSession) : {});
  const tool = make({});
  return {
    ...(tool as AnyTool),
    ...(tool.preview ? { preview: (input: unknown, c: ToolContext) => built(c).preview!(input as I, c) } : {}),
    run: (input, c, grant) => built(c).run(input as I, c, grant),
  };
}

/** Parses raw input the way the agent loop does, then runs. */
export function call(tool: AnyTool, input: unknown, context: ToolContext, grant?: CallGrant): Promise<ToolOutput> {
  return tool.run(tool.parse(input), context, grant);
}
