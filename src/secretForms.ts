// The shapes a secret can take once a command has transformed it: `echo $KEY | rev`,
// `| base64` (wrapped at 76 columns, with or without the trailing newline, at any offset in a
// longer text), `| xxd -p`, URL-encoding. Redaction removes every registered form, and
// anything shaped like a provider key.

/** Forms shorter than this are not redacted: they could be ordinary text. */
const MIN_FORM = 12;

/** Chunks of `text` as a wrapping encoder prints them (base64: 76 columns, xxd -p: 60). */
const lines = (text: string, width: number): string[] => (text.length <= width ? [] : (text.match(new RegExp(`.{1,${width}}`, 'g')) ?? []));

/**
 * The base64 characters that depend only on the secret's bytes, for each of the three
 * alignments it can have inside a longer encoded text (e.g. `env | base64`).
 */
function base64Cores(buf: Buffer): string[] {
  const out: string[] = [];
  for (let k = 0; k < 3; k++) {
    const enc = Buffer.concat([Buffer.alloc(k), buf]).toString('base64');
    const end = Math.floor((k + buf.length) / 3) * 4;
    out.push(enc.slice(k === 0 ? 0 : 4, end));
  }
  return out;
}

/** Every form of `value` worth redacting, longest first. */
export function secretForms(value: string): string[] {
  const buf = Buffer.from(value, 'utf8');
  const withNewline = Buffer.from(`${value}\n`, 'utf8');
  const b64 = [buf.toString('base64'), withNewline.toString('base64')];
  const hex = [buf.toString('hex'), withNewline.toString('hex')];
  const forms = new Set<string>([
    value,
    [...value].reverse().join(''),
    encodeURIComponent(value),
    ...b64,
    ...b64.map((b) => b.replace(/=+$/, '')),
    ...b64.map((b) => b.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')),
    ...base64Cores(buf),
    ...b64.flatMap((b) => lines(b, 76)),
    ...hex,
    ...hex.map((h) => h.toUpperCase()),
    ...hex.flatMap((h) => lines(h, 60)),
  ]);
  return [...forms].filter((f) => f.length >= MIN_FORM).sort((a, b) => b.length - a.length);
}

/**
 * Provider keys by shape, registered or not: Anthropic (sk-ant-api03-…, sk-ant-admin01-…),
 * OpenAI (sk-proj-…, sk-svcacct-…, sk-admin-…, legacy sk-…), the same reversed, and base64 of
 * a text that starts with one.
 */
export const KEY_SHAPES: readonly RegExp[] = [
  /sk-ant-[A-Za-z0-9_-]{8,}/g,
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bc2stYW50L[A-Za-z0-9+/]{12,}={0,2}/g,
  /\bc2st[A-Za-z0-9+/]{20,}={0,2}/g,
];

const KEY_CHAR = /[A-Za-z0-9_-]/;

/**
 * A reversed key (`…-ks`: 16+ key characters, then "-ks" not followed by one) replaced by
 * [redacted]. Found from each "-ks" backwards, not by a pattern that starts with a character
 * class: /[A-Za-z0-9_-]{16,}-ks/ backtracks over every start of a long run of key characters,
 * quadratic in its length (a 30,000-character base64 line took 2.5 s, a 10 MB one overflowed
 * the regular expression stack).
 */
export function redactReversedKeys(text: string): string {
  let out = '';
  let from = 0;
  for (let i = text.indexOf('-ks'); i !== -1; i = text.indexOf('-ks', i + 3)) {
    const after = text[i + 3];
    if (after !== undefined && KEY_CHAR.test(after)) continue;
    let start = i;
    while (start > from && KEY_CHAR.test(text[start - 1]!)) start--;
    if (i - start < 16) continue;
    out += `${text.slice(from, start)}[redacted]`;
    from = i + 3;
  }
  return from === 0 ? text : out + text.slice(from);
}
