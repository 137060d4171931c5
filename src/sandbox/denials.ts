// What the sandbox denied a command, read back for the model: the writes the kernel refused
// (bubblewrap's read-only binds answer EROFS, a denied file EACCES; the command's own error lines
// name the path) and the connections the proxy refused (the library records each with its host).
// Pure: lines in, lines out. A loopback connection fails inside the sandbox's own network
// namespace without reaching the proxy, so a refused one is named with why.

/** One line per denied write or connection, in the order seen, each once. */
export function deniedIn(output: string, networkViolations: readonly string[], o: { cwd: string; readOnly: boolean }): string[] {
  const out: string[] = [];
  const add = (line: string): void => {
    if (!out.includes(line)) out.push(line);
  };
  for (const line of output.split('\n')) {
    const why = /(Read-only file system|Permission denied|Operation not permitted)/.exec(line)?.[1];
    if (!why) continue;
    const path = pathIn(line);
    if (path === undefined) continue;
    add(
      `write denied: ${path} (${o.readOnly ? 'plan mode runs commands in a read-only sandbox' : why === 'Read-only file system' ? 'outside the writable paths, or on the deny list' : 'on the deny list'})`,
    );
  }
  for (const v of networkViolations) {
    const m = /deny network-outbound (\S+) \((.*)\)/.exec(v);
    add(m ? `network denied: ${m[1]} (${m[2]})` : `network denied: ${v}`);
  }
  const loopback = /(?:Failed to connect to|connect to) (localhost|127\.[\d.]+|\[?::1\]?) port (\d+)|ECONNREFUSED (127\.[\d.]+|::1):(\d+)/.exec(output);
  if (loopback)
    add(
      `network denied: ${loopback[1] ?? loopback[3]}:${loopback[2] ?? loopback[4]} (the sandbox has its own loopback: servers outside it are out of reach, except through an excluded command)`,
    );
  return out;
}

/** The path an error line names: quoted ('x', "x", ‘x’), else the field before the error ("bash: line 1: x: Read-only file system"). */
function pathIn(line: string): string | undefined {
  const quoted = /['"‘`]([^'"’`]+)['"’`]/.exec(line)?.[1];
  if (quoted !== undefined) return quoted;
  const fields = line.split(': ');
  for (let i = fields.length - 2; i >= 0; i--) {
    const f = fields[i]!.trim();
    if (f.includes('/') || /^[\w.-]+\.\w+$/.test(f) || f.startsWith('.')) return f.replace(/^(?:cannot (?:create|touch|open) )/, '');
  }
  return undefined;
}
