// Turning file-system errors into messages for the model.
import { readdir } from 'node:fs/promises';
import { basename, dirname, extname } from 'node:path';

export const errnoCode = (e: unknown): string | undefined =>
  typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : undefined;

export const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** "not found", "permission denied", ... for a path the model named. */
export function describeFsError(e: unknown, shown: string): string {
  switch (errnoCode(e)) {
    case 'ENOENT':
    case 'ENOTDIR':
      return `${shown}: no such file or directory`;
    case 'EACCES':
    case 'EPERM':
      return `${shown}: permission denied`;
    case 'EROFS':
      return `${shown}: read-only file system (a read-only mount): nothing can be written there`;
    case 'ELOOP':
      return `${shown}: too many levels of symbolic links`;
    case 'ENAMETOOLONG':
      return `${shown}: file name too long`;
    default:
      return `${shown}: ${errorMessage(e)}`;
  }
}

/** Names next to a missing file that look like what was meant (other case, other extension). */
export async function similarNames(abs: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dirname(abs));
  } catch {
    return [];
  }
  const want = basename(abs);
  const lower = want.toLowerCase();
  const stem = basename(want, extname(want)).toLowerCase();
  return names.filter((n) => n !== want && (n.toLowerCase() === lower || basename(n, extname(n)).toLowerCase() === stem)).slice(0, 5);
}
