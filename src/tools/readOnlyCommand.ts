// Which shell commands cannot change anything: what Bash may run in plan mode. The reading is
// conservative — a command is read-only only when every simple command in it is a known reader
// with no option that writes or runs something else (find -exec, sort -o, git diff --output),
// and the line has nothing the splitter refuses (substitution, subshells, redirection to a
// file). Anything unknown is not read-only: plan mode refuses it and says why.
import { splitCommand } from './shellWords.js';

/** Readers whose every option only reads. */
const READERS = new Set([
  'ls',
  'cat',
  'head',
  'tail',
  'wc',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'pwd',
  'echo',
  'which',
  'type',
  'file',
  'stat',
  'du',
  'df',
  'tree',
  'diff',
  'cmp',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'whoami',
  'id',
  'uname',
  'true',
  'false',
  'test',
  '[',
  'nl',
  'cut',
  'tr',
  'column',
  'jq',
  'od',
  'hexdump',
  'sha256sum',
  'sha1sum',
  'md5sum',
  'cksum',
  'ps',
]);

/** Options that make an otherwise reading command write or run something. */
const WRITING_OPTIONS: Readonly<Record<string, RegExp>> = {
  find: /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/,
  sort: /^(-o|--output)/,
  date: /^(-s|--set)/,
};

/** git subcommands that only read (with no option that writes a file). */
const GIT_READERS = new Set(['status', 'log', 'diff', 'show', 'blame', 'ls-files', 'ls-tree', 'rev-parse', 'grep', 'shortlog', 'describe', 'cat-file']);
/** `git branch` / `git remote` / `git tag` with only these options list, never create. */
const GIT_LISTERS: Readonly<Record<string, ReadonlySet<string>>> = {
  branch: new Set(['-a', '-r', '-v', '-vv', '--list', '-l', '--show-current', '--all', '--remotes']),
  remote: new Set(['-v', '--verbose']),
  tag: new Set(['-l', '--list']),
};

function readsOnly(words: readonly string[]): boolean {
  const [first, ...args] = words;
  if (first === undefined) return true;
  if (READERS.has(first)) return true;
  const writes = WRITING_OPTIONS[first];
  if (writes) return !args.some((a) => writes.test(a));
  if (first === 'git') {
    const [sub, ...rest] = args;
    if (sub === undefined) return false;
    if (GIT_READERS.has(sub)) return !rest.some((a) => /^--(output|ext-diff)/.test(a));
    const listing = GIT_LISTERS[sub];
    return listing !== undefined && rest.every((a) => listing.has(a));
  }
  return false;
}

/** Whether a command line can only read: every simple command in it a known reader, nothing refused by the splitter. */
export function isReadOnlyCommand(command: string): boolean {
  const split = splitCommand(command);
  if (!split.ok || split.parts.length === 0) return false;
  return split.parts.every((words) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] ?? '') && readsOnly(words));
}
