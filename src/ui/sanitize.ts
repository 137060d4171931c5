// Everything that comes from a tool or the model passes through here before it is rendered.
// Escape sequences could move the cursor, clear the screen, retitle the window or write the
// clipboard (OSC 52); stray control characters break Ink's width arithmetic. Ink itself keeps
// SGR and OSC sequences, so this is the only line of defence.

/* eslint-disable no-control-regex */
// OSC, DCS, SOS, PM, APC (7-bit and 8-bit introducers) up to their terminator (BEL or ST).
const STRING_SEQ = /(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[\s\S]*?(?:\x07|\x1b\\|\x9c)/g;
// CSI (7-bit and 8-bit introducer): parameters, intermediates, one final byte.
const CSI_SEQ = /(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]/g;
// Other escapes: ESC, optional intermediates, one final byte (ESC c, ESC 7, ESC ( B ...).
const ESC_SEQ = /\x1b[\x20-\x2f]*[\x30-\x7e]/g;
// Whatever is left: lone ESC, C0 controls other than \t \n \b \r, DEL, C1 controls.
const CONTROL = /[\x00-\x07\x0b-\x0c\x0e-\x1f\x7f-\x9f]/g;
// Bidirectional overrides and isolates can make displayed text differ from what it is.
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;

const TAB_WIDTH = 4;

/** Makes untrusted text safe and plain for the terminal: no escape sequences, no control characters. */
export function sanitize(text: string): string {
  let s = text;
  if (/[\x1b\x90-\x9f]/.test(s)) {
    s = s.replace(STRING_SEQ, '').replace(CSI_SEQ, '').replace(ESC_SEQ, '');
  }
  s = s.replace(CONTROL, '').replace(BIDI, '');
  if (s.includes('\r')) s = applyCarriageReturns(s);
  if (s.includes('\b')) s = applyBackspaces(s);
  if (s.includes('\t')) s = expandTabs(s);
  return s;
}

/** "\r\n" is a line break; a lone "\r" rewinds the line, so the last segment is what a terminal shows. */
function applyCarriageReturns(s: string): string {
  return s
    .replace(/\r+\n/g, '\n')
    .split('\n')
    .map((line) => {
      if (!line.includes('\r')) return line;
      const parts = line.split('\r').filter((p) => p.length > 0);
      return parts[parts.length - 1] ?? '';
    })
    .join('\n');
}

/** Backspace erases the previous character (man pages overstrike with "x\bx"). */
function applyBackspaces(s: string): string {
  const out: string[] = [];
  for (const ch of s) {
    if (ch === '\b') {
      if (out.length > 0 && out[out.length - 1] !== '\n') out.pop();
    } else {
      out.push(ch);
    }
  }
  return out.join('');
}

function expandTabs(s: string): string {
  return s
    .split('\n')
    .map((line) => {
      if (!line.includes('\t')) return line;
      let out = '';
      for (const ch of line) {
        if (ch === '\t') out += ' '.repeat(TAB_WIDTH - (out.length % TAB_WIDTH));
        else out += ch;
      }
      return out;
    })
    .join('\n');
}

/** One line for a compact row: sanitized, whitespace collapsed. */
export function oneLine(text: string): string {
  return sanitize(text).replace(/\s+/g, ' ').trim();
}
