// Finding the shell the Bash tool runs commands with (the process groups it starts are processes/groups.ts').
import { world } from '../runtime/world.js';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** First executable named `name` on PATH, or undefined. */
export function findOnPath(name: string, pathVar = world().env['PATH'] ?? ''): string | undefined {
  for (const dir of pathVar.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

let cachedShell: string | undefined;

/** bash when installed, else sh. */
export function defaultShell(): string {
  cachedShell ??= findOnPath('bash') ?? '/bin/sh';
  return cachedShell;
}
