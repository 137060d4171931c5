// Where FileRead, Edit and Write get a file's content and put a new one: the port the file tools
// read and write through. The default is the local disk; an editor that drives the agent (ACP's
// fs/read_text_file and fs/write_text_file) lends its own, so what the model reads is the buffer
// the person sees (unsaved changes included) and an edit lands in that buffer. Whatever the port,
// the tools still stat the disk for what a buffer cannot say (a directory, a device, the size).
import type { Stats } from 'node:fs';
import { open, readFile, writeFile } from 'node:fs/promises';

export interface FileAccess {
  /**
   * Whether what it reads can differ from the disk (an editor's unsaved buffer): the disk's time
   * stamps then say nothing of what the model saw, and the file tracker compares contents.
   */
  readonly buffered: boolean;
  /** The whole content as the person sees it now; throws as node:fs does (ENOENT, EACCES). */
  read(abs: string): Promise<Buffer>;
  /** The content in pieces, for reading a large file line by line; throws as read does. */
  chunks(abs: string): AsyncIterable<Buffer>;
  /** Replaces the content (the file exists or its folder was made). */
  write(abs: string, bytes: Buffer): Promise<void>;
}

const CHUNK = 64 * 1024;

/** The local disk: read in 64 KiB pieces, written in place (the inode keeps its mode, owner and links). */
export const localFiles: FileAccess = {
  buffered: false,
  read: (abs) => readFile(abs),
  async *chunks(abs) {
    const fh = await open(abs, 'r');
    try {
      for (;;) {
        const buf = Buffer.alloc(CHUNK);
        const { bytesRead } = await fh.read(buf, 0, CHUNK, null);
        if (bytesRead === 0) return;
        yield buf.subarray(0, bytesRead);
      }
    } finally {
      await fh.close();
    }
  },
  write: (abs, bytes) => writeFile(abs, bytes),
};

/** What the file tracker records for content read or written through `access`: a buffer's state is its content (no disk time stamp matches -1). */
export const seenState = (access: FileAccess, st: Pick<Stats, 'mtimeMs' | 'size'>, bytes: Uint8Array): Pick<Stats, 'mtimeMs' | 'size'> =>
  access.buffered ? { mtimeMs: -1, size: bytes.length } : st;
