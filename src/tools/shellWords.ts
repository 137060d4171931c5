// A conservative reading of a shell command line, for permission decisions: it splits
// the line into simple commands (at ; && || | & and newlines) and each into words with
// quotes removed, and refuses what could run or write something a prefix does not show:
// command and process substitution, subshells, here-documents, redirections other than
// to /dev/null or between descriptors.

export type SplitCommand = { ok: true; parts: string[][] } | { ok: false; reason: string };

const unsafe = (reason: string): SplitCommand => ({ ok: false, reason });

export function splitCommand(command: string): SplitCommand {
  const parts: string[][] = [];
  let words: string[] = [];
  let word: string | undefined;
  const endWord = (): void => {
    if (word !== undefined) words.push(word);
    word = undefined;
  };
  const endPart = (): void => {
    endWord();
    if (words.length > 0) parts.push(words);
    words = [];
  };
  const s = command;
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === ' ' || c === '\t') {
      endWord();
      i++;
    } else if (c === '\n' || c === ';') {
      endPart();
      i++;
    } else if (c === '\\') {
      if (s[i + 1] === '\n') i += 2;
      else {
        word = (word ?? '') + (s[i + 1] ?? '\\');
        i += 2;
      }
    } else if (c === "'") {
      const close = s.indexOf("'", i + 1);
      if (close === -1) return unsafe('an unterminated quote');
      word = (word ?? '') + s.slice(i + 1, close);
      i = close + 1;
    } else if (c === '"') {
      let j = i + 1;
      let text = '';
      for (;;) {
        const d = s[j];
        if (d === undefined) return unsafe('an unterminated quote');
        if (d === '"') break;
        if (d === '`' || (d === '$' && s[j + 1] === '(')) return unsafe('command substitution');
        if (d === '\\' && s[j + 1] !== undefined && '$`"\\\n'.includes(s[j + 1]!)) {
          if (s[j + 1] !== '\n') text += s[j + 1];
          j += 2;
          continue;
        }
        text += d;
        j++;
      }
      word = (word ?? '') + text;
      i = j + 1;
    } else if (c === '`') {
      return unsafe('command substitution');
    } else if (c === '$') {
      const n = s[i + 1];
      if (n === '(') return unsafe('command substitution');
      if (n === "'" || n === '"') return unsafe('$-quoting');
      word = (word ?? '') + c;
      i++;
    } else if (c === '&') {
      if (s[i + 1] === '>') {
        const r = redirectTarget(s, i + 2);
        if (!r.ok) return unsafe(r.reason);
        endWord();
        i = r.next;
      } else {
        endPart();
        i += s[i + 1] === '&' ? 2 : 1;
      }
    } else if (c === '|') {
      endPart();
      i += s[i + 1] === '|' || s[i + 1] === '&' ? 2 : 1;
    } else if (c === '>') {
      // "2>..." : the descriptor number was read as the start of a word
      if (word !== undefined && /^\d+$/.test(word) && i > 0 && /\d/.test(s[i - 1]!)) word = undefined;
      const r = redirectTarget(s, i + 1);
      if (!r.ok) return unsafe(r.reason);
      endWord();
      i = r.next;
    } else if (c === '<') {
      return unsafe(s[i + 1] === '(' ? 'process substitution' : s[i + 1] === '<' ? 'a here-document' : 'input redirection');
    } else if (c === '(' || c === ')') {
      return unsafe('a subshell');
    } else if (c === '#' && word === undefined) {
      while (i < s.length && s[i] !== '\n') i++;
    } else {
      word = (word ?? '') + c;
      i++;
    }
  }
  endPart();
  return { ok: true, parts };
}

/** After ">" (or "&>"): ">>", ">&N", ">&-", ">|", then a target that must be /dev/null. */
function redirectTarget(s: string, at: number): { ok: true; next: number } | { ok: false; reason: string } {
  let i = at;
  if (s[i] === '(') return { ok: false, reason: 'process substitution' };
  if (s[i] === '>' || s[i] === '|') i++;
  if (s[i] === '&') {
    const m = /^(\d+|-)/.exec(s.slice(i + 1));
    if (m) return { ok: true, next: i + 1 + m[0].length };
    return { ok: false, reason: 'output redirection' };
  }
  while (s[i] === ' ' || s[i] === '\t') i++;
  const target = /^[^\s;&|<>()]+/.exec(s.slice(i))?.[0] ?? '';
  if (target === '/dev/null') return { ok: true, next: i + target.length };
  return { ok: false, reason: 'output redirection to a file' };
}

/** Joins words back into a command line that splits into the same words. */
export function joinWords(words: string[]): string {
  return words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}
