// Telling text from binary by sniffing the first bytes of a file.
import { open } from 'node:fs/promises';

/** How many leading bytes FileRead and Grep inspect. */
export const SNIFF_BYTES = 8192;

export interface Sniff {
  binary: boolean;
  /** What the file looks like, when recognisable ("PNG image", "ZIP archive", ...). */
  kind?: string;
}

const signatures: Array<{ bytes: number[]; offset?: number; kind: string }> = [
  { bytes: [0x89, 0x50, 0x4e, 0x47], kind: 'PNG image' },
  { bytes: [0xff, 0xd8, 0xff], kind: 'JPEG image' },
  { bytes: [0x47, 0x49, 0x46, 0x38], kind: 'GIF image' },
  { bytes: [0x57, 0x45, 0x42, 0x50], offset: 8, kind: 'WebP image' },
  { bytes: [0x25, 0x50, 0x44, 0x46, 0x2d], kind: 'PDF document' },
  { bytes: [0x50, 0x4b, 0x03, 0x04], kind: 'ZIP archive' },
  { bytes: [0x1f, 0x8b], kind: 'gzip archive' },
  { bytes: [0x7f, 0x45, 0x4c, 0x46], kind: 'ELF executable' },
  { bytes: [0x00, 0x61, 0x73, 0x6d], kind: 'WebAssembly module' },
  { bytes: [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66], kind: 'SQLite database' },
];

/**
 * Binary when the sample holds a NUL byte, matches a known binary signature, or is
 * mostly control characters or invalid UTF-8.
 */
export function sniff(sample: Uint8Array): Sniff {
  for (const sig of signatures) {
    const at = sig.offset ?? 0;
    if (sample.length >= at + sig.bytes.length && sig.bytes.every((b, i) => sample[at + i] === b)) return { binary: true, kind: sig.kind };
  }
  if (sample.includes(0)) return { binary: true };
  if (sample.length === 0) return { binary: false };
  let control = 0;
  for (const b of sample) {
    // tab, LF, VT, FF, CR and ESC (ANSI colours in logs) are normal in text
    if ((b < 0x20 && b !== 9 && b !== 10 && b !== 11 && b !== 12 && b !== 13 && b !== 27) || b === 0x7f) control++;
  }
  if (control / sample.length > 0.1) return { binary: true };
  const text = new TextDecoder('utf-8').decode(sample);
  let invalid = 0;
  for (const ch of text) if (ch === '\uFFFD') invalid++;
  // a multi-byte character cut at the end of the sample costs at most one replacement
  if (invalid > 1 && invalid / text.length > 0.3) return { binary: true };
  return { binary: false };
}

/** Reads up to `bytes` leading bytes of a file. */
export async function readHead(path: string, bytes = SNIFF_BYTES): Promise<Uint8Array> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

export function describeBinary(s: Sniff): string {
  return s.kind ? `a binary file (${s.kind})` : 'a binary file';
}
