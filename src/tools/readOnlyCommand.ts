// Which shell commands cannot change anything: what Bash may run in plan mode. The reading is
// conservative — a command is read-only only when every simple command in it is a known reader
// with no option that writes a file or runs another program (find -exec, sort -o, rg --pre,
// git grep -O, git diff --ext-diff), and the line has nothing the splitter refuses
// (substitution, subshells, redirection to a file). Anything unknown is not read-only: plan
// mode refuses it and says why. Programs that can run others whatever their options (sed, awk,
// less, man, tar, xargs, env, a shell) are not readers at all.
import { splitCommand } from './shellWords.js';

/** Readers with no option that writes a file or runs a program. */
const READERS = new Set([
  'ls',
  'cat',
  'head',
  'tail',
  'wc',
  'grep',
  'egrep',
  'fgrep',
  'pwd',
  'echo',
  'which',
  'type',
  'stat',
  'du',
  'df',
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

/**
 * Readers with options that write a file or run a program. `long` names are matched as GNU and
 * git parse them, so an abbreviation (`--out=f` for `--output`) counts; `short` letters count
 * anywhere in a cluster (`-ro f`) until a letter in `takesValue`, whose value the rest is.
 */
type Dangerous = { long: readonly string[]; short: string; takesValue: string };
const OPTIONS_THAT_WRITE_OR_RUN: Readonly<Record<string, Dangerous>> = {
  // --pre runs a program on every file, --pre-glob picks which, -z runs decompressors, --hostname-bin runs one
  rg: { long: ['pre', 'pre-glob', 'search-zip', 'hostname-bin'], short: 'z', takesValue: 'ABCEMTdefgjmrt' },
  sort: { long: ['output', 'compress-program'], short: 'o', takesValue: 'STkt' },
  date: { long: ['set'], short: 's', takesValue: 'Ifdr' },
  // -o writes the listing to a file, -R runs tree again with -o in every directory
  tree: { long: [], short: 'oR', takesValue: '' },
  // -C compiles a magic file into a .mgc, -z/-Z run decompressors
  file: { long: ['compile', 'uncompress', 'uncompress-noreport'], short: 'CzZ', takesValue: 'Fefm' },
  // -l pipes the output through pr
  diff: { long: ['paginate'], short: 'l', takesValue: 'CDFILSUWXx' },
};

/** find's expression words that run or write (exact: find has no abbreviations). */
const FIND_ACTIONS = /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/;

/** git subcommands that only read, with the options that make each run a program or write a file. */
const GIT_DIFFING: Dangerous = { long: ['output', 'ext-diff', 'textconv'], short: '', takesValue: '' };
const GIT_READERS: Readonly<Record<string, Dangerous>> = {
  status: { long: [], short: '', takesValue: '' },
  log: GIT_DIFFING,
  diff: GIT_DIFFING,
  show: GIT_DIFFING,
  blame: { long: ['textconv'], short: '', takesValue: '' },
  'ls-files': { long: [], short: '', takesValue: '' },
  'ls-tree': { long: [], short: '', takesValue: '' },
  'rev-parse': { long: [], short: '', takesValue: '' },
  // -O / --open-files-in-pager runs a pager, or the program given, on the matching files
  grep: { long: ['open-files-in-pager', 'textconv'], short: 'O', takesValue: 'ABCefm' },
  shortlog: GIT_DIFFING,
  describe: { long: [], short: '', takesValue: '' },
  // --filters runs the repository's clean/smudge filters, --textconv its diff drivers
  'cat-file': { long: ['filters', 'textconv'], short: '', takesValue: '' },
};
/** `git branch` / `git remote` / `git tag` with only these options list, never create. */
const GIT_LISTERS: Readonly<Record<string, ReadonlySet<string>>> = {
  branch: new Set(['-a', '-r', '-v', '-vv', '--list', '-l', '--show-current', '--all', '--remotes']),
  remote: new Set(['-v', '--verbose']),
  tag: new Set(['-l', '--list']),
};

/** Whether a word is one of the dangerous options, or a cluster or abbreviation holding one. */
function isDangerous(word: string, d: Dangerous): boolean {
  if (word.startsWith('--')) {
    const name = word.slice(2).split('=')[0] ?? '';
    return name !== '' && d.long.some((long) => long.startsWith(name));
  }
  if (!word.startsWith('-') || word.length < 2) return false;
  for (const letter of word.slice(1)) {
    if (d.short.includes(letter)) return true;
    if (d.takesValue.includes(letter)) return false;
  }
  return false;
}

function readsOnly(words: readonly string[]): boolean {
  const [first, ...args] = words;
  if (first === undefined) return true;
  if (READERS.has(first)) return true;
  if (first === 'find') return !args.some((a) => FIND_ACTIONS.test(a));
  const dangerous = OPTIONS_THAT_WRITE_OR_RUN[first];
  if (dangerous) return !args.some((a) => isDangerous(a, dangerous));
  if (first === 'git') {
    // a global option before the subcommand (-c, -C, --exec-path, -p) is not read: refused
    const [sub, ...rest] = args;
    if (sub === undefined) return false;
    const reader = GIT_READERS[sub];
    if (reader) return !rest.some((a) => isDangerous(a, reader));
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
