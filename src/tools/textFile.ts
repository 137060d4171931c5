// Reading a text file for an edit and writing it back the way it was: encoding, byte order
// mark, line endings and a final newline (or its absence) survive the round trip.
import { sniff, describeBinary } from './binary.js';

export type TextEncoding = 'utf8' | 'utf16le' | 'utf16be';
export type LineEnding = '\n' | '\r\n';

export interface TextFormat {
  encoding: TextEncoding;
  bom: boolean;
  /** The file's dominant line ending; the model's text (always \n) is written with it. */
  eol: LineEnding;
}

export interface DecodedText {
  /** The content with \n line endings and no BOM: what the model sees and edits. */
  text: string;
  format: TextFormat;
}

export type DecodeResult = { ok: true; decoded: DecodedText } | { ok: false; why: string };

const BOM_UTF8 = [0xef, 0xbb, 0xbf];

/** Decodes a file's bytes; refuses binary files and bytes that are not valid in their encoding. */
export function decodeText(buf: Buffer): DecodeResult {
  let encoding: TextEncoding = 'utf8';
  let bom = false;
  let body: Buffer = buf;
  if (buf.length >= 3 && BOM_UTF8.every((b, i) => buf[i] === b)) {
    bom = true;
    body = buf.subarray(3);
  } else if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) {
    encoding = 'utf16le';
    bom = true;
    body = buf.subarray(2);
  } else if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) {
    encoding = 'utf16be';
    bom = true;
    body = buf.subarray(2);
  }
  let raw: string;
  if (encoding === 'utf8') {
    const s = sniff(body.subarray(0, 8192));
    if (s.binary) return { ok: false, why: `is ${describeBinary(s)}` };
    try {
      raw = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
    } catch {
      return { ok: false, why: 'is not valid UTF-8 (another encoding?); editing it as text would change its bytes' };
    }
  } else {
    if (body.length % 2 !== 0) return { ok: false, why: `has an odd number of bytes for ${encoding === 'utf16le' ? 'UTF-16LE' : 'UTF-16BE'}` };
    const le = encoding === 'utf16le' ? body : swap16(body);
    raw = new TextDecoder('utf-16le', { ignoreBOM: true }).decode(le);
  }
  const crlf = countOf(raw, '\r\n');
  const lf = countOf(raw, '\n') - crlf;
  const eol: LineEnding = crlf > lf ? '\r\n' : '\n';
  const text = eol === '\r\n' ? raw.replace(/\r\n/g, '\n') : raw;
  return { ok: true, decoded: { text, format: { encoding, bom, eol } } };
}

/** The bytes of `text` (\n line endings) written in `format`. */
export function encodeText(text: string, format: TextFormat): Buffer {
  const raw = format.eol === '\r\n' ? text.replace(/\r?\n/g, '\r\n') : text;
  if (format.encoding === 'utf8') {
    const body = Buffer.from(raw, 'utf8');
    return format.bom ? Buffer.concat([Buffer.from(BOM_UTF8), body]) : body;
  }
  const le = Buffer.from(raw, 'utf16le');
  const body = format.encoding === 'utf16le' ? le : swap16(le);
  const bom = format.encoding === 'utf16le' ? [0xff, 0xfe] : [0xfe, 0xff];
  return format.bom ? Buffer.concat([Buffer.from(bom), body]) : body;
}

export const DEFAULT_FORMAT: TextFormat = { encoding: 'utf8', bom: false, eol: '\n' };

function swap16(buf: Buffer): Buffer {
  const out = Buffer.from(buf);
  out.swap16();
  return out;
}

function countOf(s: string, needle: string): number {
  let n = 0;
  for (let i = s.indexOf(needle); i !== -1; i = s.indexOf(needle, i + needle.length)) n++;
  return n;
}
