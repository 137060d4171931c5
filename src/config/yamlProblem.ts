// What a YAML frontmatter's parse error says, in one line: the yaml package's message ends its
// first line with "at line L, column C:" and shows the source on the next ones, so its first
// line alone reads "…column 15:" (and a caller's "; the skill is skipped" made it "column 15:;").

/**
 * The parse error of a frontmatter as one line: the problem, where it is in the file (the
 * frontmatter starts on the file's second line, after "---") and the line it is on.
 */
export function yamlProblem(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  const [first = '', ...rest] = message.split('\n');
  const problem = first.replace(/\s*at line \d+, column \d+:?\s*$/, '').replace(/:\s*$/, '');
  const pos = (e as { linePos?: ReadonlyArray<{ line: number; col: number }> } | null)?.linePos?.[0];
  const source = rest.find((l) => l.trim() !== '' && !/^\s*\^+\s*$/.test(l))?.trim();
  return `${problem}${pos ? ` at line ${pos.line + 1}, column ${pos.col}` : ''}${source ? ` (\`${source}\`)` : ''}`;
}
