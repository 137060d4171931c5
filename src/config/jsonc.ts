import { findNodeAtLocation, getNodeValue, parseTree, printParseErrorCode, type Node as JsonNode, type ParseError } from 'jsonc-parser';

/**
 * Removes // and /* *\/ comments from JSON text, leaving strings intact, so .agentrc files
 * may carry comments (as .agentrc.example does). Line structure is kept so that JSON.parse
 * positions still point at the right line.
 */
export function stripJsonComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    const next = text[i + 1];
    if (ch === '"') {
      const start = i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      out += text.slice(start, ++i);
    } else if (ch === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (ch === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}

/** Where a problem is in a text: 1-based line and column. */
export interface TextPosition {
  line: number;
  column: number;
}

export function positionAt(text: string, offset: number): TextPosition {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: offset - lineStart + 1 };
}

const PARSE_PROBLEMS: Record<string, string> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'malformed number',
  PropertyNameExpected: 'expected a key in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected ":"',
  CommaExpected: 'expected ","',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: 'unexpected text after the end',
  InvalidCommentToken: 'malformed comment',
  UnexpectedEndOfComment: 'unclosed comment',
  UnexpectedEndOfString: 'unclosed string',
  UnexpectedEndOfNumber: 'unfinished number',
  InvalidUnicode: 'malformed \\u escape',
  InvalidEscapeCharacter: 'malformed escape',
  InvalidCharacter: 'a control character inside a string',
};

export type JsoncResult = { ok: true; value: unknown; tree: JsonNode | undefined } | { ok: false; problem: string };

/**
 * Parses JSON with comments as VS Code reads its settings: // and /* *\/ comments and trailing
 * commas are allowed; a file holding nothing (or only comments) is an empty object. Problems
 * name their line and column.
 */
export function parseJsonc(text: string): JsoncResult {
  const errors: ParseError[] = [];
  const options = { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true };
  const tree = parseTree(text, errors, options);
  if (errors.length > 0) {
    // the first error is the one to fix: the parser's later ones follow from it
    const first = errors[0]!;
    const { line, column } = positionAt(text, first.offset);
    const code = printParseErrorCode(first.error);
    return { ok: false, problem: `line ${line}, column ${column}: ${PARSE_PROBLEMS[code] ?? code}` };
  }
  return { ok: true, value: tree === undefined ? {} : (getNodeValue(tree) as unknown), tree };
}

/** The position of the value at `path` (or of the nearest enclosing one that exists), for schema problems. */
export function positionOf(text: string, tree: JsonNode | undefined, path: ReadonlyArray<string | number>): TextPosition | undefined {
  if (!tree) return undefined;
  for (let n = path.length; n >= 0; n--) {
    const node = findNodeAtLocation(tree, path.slice(0, n) as Array<string | number>);
    if (!node) continue;
    // a key's position reads better than its value's: point at the property
    const at = node.parent?.type === 'property' ? node.parent.offset : node.offset;
    return positionAt(text, at);
  }
  return undefined;
}
