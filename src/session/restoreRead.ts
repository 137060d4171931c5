import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';

/** A file's text for the context restored after a compaction; undefined when it is gone, binary or over 2 MB. */
export async function readForRestore(cwd: string, path: string): Promise<string | undefined> {
  const full = resolve(cwd, path);
  try {
    const s = await stat(full);
    if (!s.isFile() || s.size > 2_000_000) return undefined;
    const buf = await readFile(full);
    if (buf.subarray(0, 8000).includes(0)) return undefined;
    return buf.toString('utf8');
  } catch {
    return undefined;
  }
}
