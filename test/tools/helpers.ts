import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AnyTool, ToolContext, ToolOutput } from '../../src/tools/types.js';
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

/** Parses raw input the way the agent loop does, then runs. */
export function call(tool: AnyTool, input: unknown, context: ToolContext): Promise<ToolOutput> {
  return tool.run(tool.parse(input), context);
}
