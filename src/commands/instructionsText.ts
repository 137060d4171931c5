// What /memory shows and what /init asks the model.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { InstructionFile } from '../agent/instructions.js';
import { promptText } from '../promptText.js';
import INIT from './init.md';
import { plural } from '../tools/format.js';

export function memoryText(files: readonly InstructionFile[], personalDir: string): string {
  const personal = join(personalDir, 'AGENTS.md');
  if (files.length === 0) {
    return `No instruction files are loaded. Put project instructions in AGENTS.md (or CLAUDE.md) in the repository, personal ones in ${personal}; /init drafts an AGENTS.md for this repository.`;
  }
  const lines = files.map((f) => {
    // a file's last line ends with a newline: that newline starts no line of its own
    const n = f.text === '' ? 0 : f.text.replace(/\n$/, '').split('\n').length;
    return `  ${f.path} (${f.scope}, ${plural(n, 'line')}${f.truncated ? ', cut to fit' : ''})`;
  });
  return [`Instruction files in force (in the system prompt, so they survive compaction; nearer files win):`, ...lines].join('\n');
}

/** The request /init sends: study the repository, then write (or improve) AGENTS.md in the working directory. */
export function initPrompt(cwd: string): string {
  const path = join(cwd, 'AGENTS.md');
  const existing = existsSync(path);
  const request = existing
    ? `Please improve the AGENTS.md at ${path}: study the repository and bring it up to date, keeping what is still right.`
    : `Please study this repository and write an AGENTS.md at ${path}: the instructions a coding agent needs to work in it.`;
  return promptText(INIT, { request });
}
