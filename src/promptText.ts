// Model-facing prose kept in .md files (see textModules.d.ts): a file is the text exactly, but
// for the newline that ends it, and {{name}} marks a value the code fills in. The filling is one
// pass (a value is never read as a template), and a name without a value, or a value no name
// asks for, is an error: a typo in a prompt fails its first test, never a request.

const SLOT = /\{\{(\w+)\}\}/g;

/** The text of a prompt file with its {{values}} filled in. */
export function promptText(file: string, values: Readonly<Record<string, string>> = {}): string {
  const text = file.endsWith('\n') ? file.slice(0, -1) : file;
  const used = new Set<string>();
  const filled = text.replace(SLOT, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`prompt text: no value for {{${name}}} in "${text.slice(0, 60)}…"`);
    used.add(name);
    return value;
  });
  const unused = Object.keys(values).filter((k) => !used.has(k));
  if (unused.length > 0) throw new Error(`prompt text: {{${unused.join('}}, {{')}}} not in "${text.slice(0, 60)}…"`);
  return filled;
}
