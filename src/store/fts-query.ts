// Free text from people and the model → a safe FTS5 MATCH expression. Every term is quoted,
// so FTS5 operators and punctuation in the input are plain text, never syntax.

const MAX_TERMS = 32;
const WORDISH = /[\p{L}\p{N}]/u;

export interface FtsQuery {
  /** Every term must match (tried first). */
  all: string;
  /** Any term may match (the fallback when no row has all of them). */
  any: string;
  /** The cleaned terms, for the LIKE scan. */
  terms: string[];
}

interface Term {
  text: string;
  prefix: boolean;
}

function splitTerms(input: string): Term[] {
  const terms: Term[] = [];
  // "a quoted phrase" | bare-word (a trailing * asks for a prefix match)
  const re = /"([^"]*)"?|([^\s"]+)/g;
  for (let m = re.exec(input); m !== null; m = re.exec(input)) {
    const phrase = m[1];
    if (phrase !== undefined) {
      terms.push({ text: phrase.trim(), prefix: false });
    } else {
      const word = m[2] ?? '';
      const prefix = word.length > 1 && word.endsWith('*');
      terms.push({ text: prefix ? word.slice(0, -1) : word, prefix });
    }
  }
  return terms.filter((t) => WORDISH.test(t.text)).slice(0, MAX_TERMS);
}

/** Undefined when the input holds nothing searchable (empty, or only punctuation). */
export function toFtsQuery(input: string): FtsQuery | undefined {
  const terms = splitTerms(input);
  if (terms.length === 0) return undefined;
  const quoted = terms.map((t) => `"${t.text}"${t.prefix ? '*' : ''}`);
  return { all: quoted.join(' '), any: quoted.join(' OR '), terms: terms.map((t) => t.text) };
}
