// Translates a JavaScript regex (valid with the `u` flag) into a Rust regex for ripgrep
// that matches the same lines, or returns undefined when the pattern uses something
// only JavaScript has (look-around, back-references, \p{…}) or something the two
// engines read differently; the caller then searches in JavaScript.

// JavaScript's \s, minus \n (never inside a line; ripgrep refuses a literal \n)
const WS = '\\t\\x0B\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';
const DIGIT = '0-9';
const WORD = '0-9A-Za-z_';
// JavaScript's `.` stops at line terminators, including \r and the Unicode separators
const DOT = '[^\\n\\r\\x{2028}\\x{2029}]';
const RUST_META = new Set([...'\\.+*?()|[]{}^$#&-~']);

const hexEscape = (code: number): string => `\\x{${code.toString(16).toUpperCase()}}`;

export function toRustRegex(js: string): string | undefined {
  let out = '';
  let inClass = false;
  let classStart = -1;
  for (let i = 0; i < js.length; i++) {
    const c = js[i]!;
    if (c === '\\') {
      const n = js[i + 1];
      if (n === undefined) return undefined;
      i++;
      switch (n) {
        case 'd':
          out += inClass ? DIGIT : `[${DIGIT}]`;
          break;
        case 'w':
          out += inClass ? WORD : `[${WORD}]`;
          break;
        case 's':
          out += inClass ? WS : `[${WS}]`;
          break;
        case 'D':
        case 'W':
        case 'S':
          if (inClass) return undefined;
          out += `[^${n === 'D' ? DIGIT : n === 'W' ? WORD : WS}]`;
          break;
        case 'b':
          out += inClass ? '\\x08' : '(?-u:\\b)';
          break;
        case 'B':
          if (inClass) return undefined;
          out += '(?-u:\\B)';
          break;
        case 'n':
        case 'r':
        case 't':
        case 'f':
        case 'v':
          out += `\\${n}`;
          break;
        case '0':
          out += '\\x{0}';
          break;
        case 'x': {
          const hex = js.slice(i + 1, i + 3);
          if (!/^[0-9a-fA-F]{2}$/.test(hex)) return undefined;
          out += `\\x{${hex}}`;
          i += 2;
          break;
        }
        case 'u': {
          const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(js.slice(i + 1));
          if (braced) {
            out += `\\x{${braced[1]!}}`;
            i += braced[0].length;
            break;
          }
          const hex = js.slice(i + 1, i + 5);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) return undefined;
          const code = parseInt(hex, 16);
          if (code >= 0xd800 && code <= 0xdfff) return undefined; // surrogate pairs
          out += hexEscape(code);
          i += 4;
          break;
        }
        case 'c': {
          const letter = js[i + 1];
          if (letter === undefined || !/[A-Za-z]/.test(letter)) return undefined;
          out += hexEscape(letter.charCodeAt(0) % 32);
          i++;
          break;
        }
        default:
          // \p{…}, \k<…>, back-references: JavaScript only
          if (/[A-Za-z0-9]/.test(n)) return undefined;
          out += RUST_META.has(n) ? `\\${n}` : n;
      }
      continue;
    }
    if (inClass) {
      if (c === ']' && i > classStart) {
        inClass = false;
        out += ']';
      } else if (c === '[' || c === '&' || c === '~') {
        // literal in JavaScript; nesting and set operators in Rust
        out += `\\${c}`;
      } else if (c === '-' && js[i + 1] === '-') {
        return undefined;
      } else {
        out += c;
      }
      continue;
    }
    switch (c) {
      case '.':
        out += DOT;
        break;
      case '[': {
        // [] matches nothing and [^] anything in JavaScript; Rust reads ] there as a literal
        const negated = js[i + 1] === '^';
        if (js[i + (negated ? 2 : 1)] === ']') return undefined;
        inClass = true;
        out += negated ? '[^' : '[';
        if (negated) i++;
        classStart = i + 1;
        break;
      }
      case '(':
        if (js[i + 1] === '?') {
          const rest = js.slice(i + 2);
          if (rest.startsWith(':')) {
            out += '(?:';
            i += 2;
          } else if (/^<[A-Za-z_$][\w$]*>/.test(rest)) {
            // named group: Rust allows only word characters in the name
            const name = /^<([A-Za-z_$][\w$]*)>/.exec(rest)![1]!;
            if (name.includes('$')) return undefined;
            out += `(?<${name}>`;
            i += 2 + name.length + 1;
          } else {
            return undefined; // look-ahead, look-behind, modifiers
          }
        } else {
          out += '(';
        }
        break;
      case '#':
      case '&':
      case '~':
        out += `\\${c}`;
        break;
      default:
        out += c;
    }
  }
  return inClass ? undefined : out;
}
