// A run's scratch folder: where the prompt keeps what the person pasted as files (a text saved by
// Ctrl+S, a clipboard image) until the message that mentions them is sent. Made on first use, one
// per run (a world's slot), and removed when the run ends, whatever path the end took: the
// message already holds what it mentioned (the text, or its spill to the archive, and the image's
// bytes), so nothing outlives the run in the system's temporary folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { slot, world } from './world.js';

const SCRATCH = Symbol('scratch folder');

/** A new file name in this run's scratch folder (`<name>-<n><ext>`), the folder made on first use. */
export function scratchFile(name: string, ext: string): string {
  const dir = slot(SCRATCH, () => {
    const made = { path: mkdtempSync(join(tmpdir(), 'agent-scratch-')), files: 0 };
    world().onExit(() => rmSync(made.path, { recursive: true, force: true }));
    return made;
  });
  return join(dir.path, `${name}-${++dir.files}${ext}`);
}
