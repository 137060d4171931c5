import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

// `npm run bench [-- name...]`: runs the benchmarks one after another, each in its own
// process so that one's heap does not weigh on the next. Every figure that matters is a
// ratio measured within one run; absolute times depend on the machine.

const BENCHES: Record<string, string> = {
  prefix: 'issue 48: the fixed prefix (system prompt and tool definitions) of a default session, in tokens, per tool; vs Claude Code with AGENT_BENCH_PEER',
  startup: 'start-up of the CLI vs node -e 0: --version, a -p round trip, and one resuming a 20-tool-turn session',
  firstframe: 'first interactive frame in a pty, new session and a resumed 2,000-message one',
  compaction: 'token accounting (incremental vs full recount, growth with length), micro and split selection',
  store: 'resume with 100,000 archived messages vs 200, append throughput, FTS vs LIKE search',
  ui: 'render cost per streamed chunk and keystroke with 20 / 200 / 2,000 prior messages',
  caching: 'billed input of a 40-turn session with caching on vs off, and cache-aware micro compaction vs clearing at every call',
  responses:
    "OpenAI's compaction (responses.compact) vs the agent's own on one 30-turn gpt-5.4 Responses session: billed input, output, requests, wall time, what later turns can read",
  mcp: 'first interactive frame with two MCP servers that take 5 s to start vs none',
  thinking: 'cache hit share, billed input and refused requests of a 24-turn session on a model that thinks (signed thinking sent back)',
  spill:
    'issue 21: a 40-turn session with 6,000-line outputs, spilling off (today) vs the spill rule, Anthropic and OpenAI billing; peak RSS of a 50 MB output',
  edit: 'Edit on 0.5 / 1 / 5 MB files and on 100 vs 1,000 small files; snapshot database growth for 200 edits of a 100 KB file',
  subagents: "a 20-turn exploration reading five large files a turn, directly vs through Task children: the parent's largest request and billed input",
  hooks: 'a tool call waiting for a PreToolUse hook vs none; loading 200 custom command files',
  skills: 'issue 33: discovering 200 SKILL.md folders vs none, and their listing within its budget (~2% of the window)',
  fidelity:
    'issue 37: facts of a scripted coding session carried across manual, reactive and successive auto compactions, three summarizers (keeps nothing, half, all), ledger on vs off',
  ledger: 'issue 37: the working-state ledger of a session with 5,000 messages of the person: time to derive it and its tokens against the budget',
  grep: 'Grep on a generated 6,000-file / ~60 MB tree: packaged ripgrep (the default) vs rg on PATH vs the JavaScript search',
  billed:
    'issue 48: billed input of a 24-turn session of reads and a 40-turn tool-heavy coding session (-p --continue), vs Claude Code with AGENT_BENCH_PEER; the tool-heavy one on Responses vs Codex with AGENT_BENCH_CODEX',
  grepturn: 'issue 48: a Grep turn (-p) over a 17,700-file repository beyond a plain round trip, rare and common words; vs Claude Code with AGENT_BENCH_PEER',
  background:
    "issue 34: a 50 MB stream from a background command vs the spill benchmark's foreground output (peak RSS); a turn's round trip with 10 background commands printing vs none",
  checkpoints:
    "issue 46: the working tree's checkpoints on a 17,700-file tree: the first snapshot, a turn's boundary unchanged (budget 100 ms) and after 20 changed files, a second session's first, a code rewind",
  install: 'issue 31: the package installed with npm install -g vs the checkout: first frame and one -p round trip',
  'compaction-wait':
    'issue 43: a 40-step -p tool loop crossing auto compaction, summarizer answering after 0 / 5 / 30 s or never: longest wait and p95 between steps, background vs synchronous; billed input of a 40-turn session, background on vs off',
  memory:
    'issue 48: one process through a 100-turn stream-json session (a Bash read a turn): resident set after the last turn and its peak; vs Claude Code with AGENT_BENCH_PEER',
  sandbox: 'issue 44: a Bash command sandboxed vs unsandboxed (median of 10; bound 100 ms more), and a dev server in the background that keeps serving',
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = wanted.filter((w) => !(w in BENCHES));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; choose from ${Object.keys(BENCHES).join(', ')}`);
  process.exit(2);
}
let failed = false;
for (const name of wanted.length > 0 ? wanted : Object.keys(BENCHES)) {
  console.log(`\n== ${name}: ${BENCHES[name]}`);
  // the benches import src/, whose prompts are .md files: the text hook loads them as the bundle does
  const textImports = pathToFileURL(resolve(import.meta.dirname, '..', 'scripts', 'textImports.ts')).href;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--import', textImports, resolve(import.meta.dirname, `${name}.ts`)], { stdio: 'inherit' });
  if (r.status !== 0) failed = true;
}
process.exitCode = failed ? 1 : 0;
