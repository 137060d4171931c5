// The import graph of src/ and the layer rules of docs/DESIGN.md, as data and pure checks, so
// that test/architecture.test.ts can run them on the real tree and on made-up graphs.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export interface ImportEdge {
  /** The importing file, relative to the repository with '/' separators: "src/cli.ts". */
  from: string;
  /** A file under src/ ("src/llm/messages.ts") or a package name ("ink", "@anthropic-ai/sdk"). */
  to: string;
  /** `import type`, `export type`, all-type named imports, or `typeof import()`: gone at run time. */
  typeOnly: boolean;
  /** `import()` of a string literal. */
  dynamic: boolean;
}

const isRelative = (spec: string): boolean => spec.startsWith('./') || spec.startsWith('../');

/** "@scope/name/sub" → "@scope/name", "name/sub" → "name", "node:fs" stays. */
export function packageOf(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** The import specifiers of one file, with how they are imported. */
export function importsOf(fileName: string, text: string): Array<{ spec: string; typeOnly: boolean; dynamic: boolean }> {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: Array<{ spec: string; typeOnly: boolean; dynamic: boolean }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      // `import { type A, type B } from` leaves nothing at run time either (verbatimModuleSyntax keeps a bare `import {} from`, though)
      const allTypes =
        clause !== undefined &&
        (clause.isTypeOnly || (clause.name === undefined && named !== undefined && named.length > 0 && named.every((e) => e.isTypeOnly)));
      found.push({ spec: node.moduleSpecifier.text, typeOnly: allTypes, dynamic: false });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : undefined;
      const allTypes = node.isTypeOnly || (named !== undefined && named.length > 0 && named.every((e) => e.isTypeOnly));
      found.push({ spec: node.moduleSpecifier.text, typeOnly: allTypes, dynamic: false });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) found.push({ spec: arg.text, typeOnly: false, dynamic: true });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ spec: node.argument.literal.text, typeOnly: true, dynamic: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

const posix = (p: string): string => p.split(sep).join('/');

/** Every import of every file under `root`/src; relative imports resolved to the .ts/.tsx file they name. */
export function loadGraph(root: string): ImportEdge[] {
  const files = sourceFiles(join(root, 'src'));
  const known = new Set(files.map((f) => posix(relative(root, f))));
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const from = posix(relative(root, file));
    for (const { spec, typeOnly, dynamic } of importsOf(file, readFileSync(file, 'utf8'))) {
      if (!isRelative(spec)) {
        edges.push({ from, to: packageOf(spec), typeOnly, dynamic });
        continue;
      }
      const target = posix(relative(root, resolve(dirname(file), spec)));
      const candidates = [target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx'), target];
      const to = candidates.find((c) => known.has(c));
      // a relative import of a non-source file (package.json, a prompt's .md text) is no edge between modules
      if (to) edges.push({ from, to, typeOnly, dynamic });
      else if (!target.startsWith('src/') || (target.endsWith('.md') && existsSync(join(root, target)))) continue;
      else throw new Error(`${from}: cannot resolve import "${spec}"`);
    }
  }
  return edges;
}

export interface Rule {
  /** What the rule says, as DESIGN.md says it. */
  name: string;
  /** True when the edge breaks the rule. */
  forbids: (e: ImportEdge) => boolean;
}

const under =
  (dir: string) =>
  (file: string): boolean =>
    file.startsWith(`${dir}/`);
const isSdk = (to: string): boolean => to === '@anthropic-ai/sdk' || to === 'openai';
const isMcpSdk = (to: string): boolean => to.startsWith('@modelcontextprotocol/');
const SDK_ADAPTERS = new Set([
  'src/llm/anthropic.ts',
  'src/llm/openai.ts',
  'src/llm/responses.ts',
  'src/llm/anthropicWebSearch.ts',
  'src/llm/responsesWebSearch.ts',
]);
const isSql = (to: string): boolean => to === 'better-sqlite3' || under('src/store')(to);
const isUi = (to: string): boolean => to === 'ink' || to === 'react' || to === 'ink-testing-library' || under('src/ui')(to);

/** Modules that write (or, for old rows, read) the texts of messages no person typed: the UI switches on the origin instead. */
const PRODUCER_TEXTS = [
  'src/session/shellNote.ts',
  'src/session/dateNote.ts',
  'src/session/mentions.ts',
  'src/session/typedCommand.ts',
  'src/session/repair.ts',
  'src/plan/plans.ts',
  'src/hooks/capability.ts',
  'src/history/legacyOrigins.ts',
];

/** The layer rules of docs/DESIGN.md ("Layers"), each checked on every edge, type-only ones included. */
export const LAYER_RULES: Rule[] = [
  {
    name: "the UI (src/ui/) reads what a message is from its origin (llm/messages.ts), never from its text: it imports none of the producers' modules whose texts it once parsed (session/shellNote.ts, dateNote.ts, mentions.ts, typedCommand.ts, repair.ts, plan/plans.ts, hooks/capability.ts) nor history/legacyOrigins.ts, where the store reads old rows' texts",
    forbids: (e) => under('src/ui')(e.from) && PRODUCER_TEXTS.includes(e.to),
  },
  {
    name: 'only the adapters (src/llm/anthropic.ts, openai.ts, responses.ts, and their web search parts) import the SDKs',
    forbids: (e) => isSdk(e.to) && !SDK_ADAPTERS.has(e.from),
  },
  { name: 'only src/mcp/ imports the MCP SDK', forbids: (e) => isMcpSdk(e.to) && !under('src/mcp')(e.from) },
  { name: 'only src/store/ imports better-sqlite3', forbids: (e) => e.to === 'better-sqlite3' && !under('src/store')(e.from) },
  {
    name: 'the loop (src/agent/) and compaction (src/compaction/) know no UI (ink, react, src/ui/) and no SQL (better-sqlite3, src/store/)',
    forbids: (e) => (under('src/agent')(e.from) || under('src/compaction')(e.from)) && (isUi(e.to) || e.to === 'better-sqlite3' || under('src/store')(e.to)),
  },
  {
    name: 'the session (src/session/) imports nothing from src/ui/ (its views live in session/protocol.ts)',
    forbids: (e) => under('src/session')(e.from) && isUi(e.to),
  },
  {
    name: 'the tools (src/tools/) and the providers (src/llm/) know no UI and no store',
    forbids: (e) => (under('src/tools')(e.from) || under('src/llm')(e.from)) && (isUi(e.to) || under('src/store')(e.to) || e.to === 'better-sqlite3'),
  },
  {
    name: 'the new rooms (src/mcp/, src/agents/, src/hooks/, src/trust/, src/skills/, src/plan/, src/background/) know no UI and no SQL: they reach the store through the session layer',
    forbids: (e) =>
      ['src/mcp', 'src/agents', 'src/hooks', 'src/trust', 'src/skills', 'src/plan', 'src/background'].some((room) => under(room)(e.from)) &&
      (isUi(e.to) || isSql(e.to)),
  },
  {
    name: 'src/goals/ (a goal the session works toward: its state, /goal, the Goal tool, what continues a turn) knows no UI and no SQL: the front ends drive it, the session saves it',
    forbids: (e) => under('src/goals')(e.from) && (isUi(e.to) || isSql(e.to)),
  },
  {
    name: 'src/doctor/ (agent doctor) knows no UI and no SQL: it checks SQLite and opens nothing but through src/store/index.ts',
    forbids: (e) => under('src/doctor')(e.from) && (isUi(e.to) || e.to === 'better-sqlite3' || (under('src/store')(e.to) && e.to !== 'src/store/index.ts')),
  },
  {
    name: 'better-sqlite3 is imported for its types alone: src/store/sqlite.ts loads the binding (12 or the prebuilt 13) at run time',
    forbids: (e) => e.to === 'better-sqlite3' && !e.typeOnly,
  },
  {
    name: 'the capability seam (src/capability/) imports types only: it is the vocabulary capabilities and the session share, and runs nothing',
    forbids: (e) => under('src/capability')(e.from) && e.to.startsWith('src/') && !under('src/capability')(e.to) && !e.typeOnly,
  },
  {
    name: 'a capability (src/<room>/capability.ts) imports only the seam (src/capability/), src/tools/, src/llm/ and its own room: what else it needs, the session lends it when it opens',
    forbids: (e) => {
      const m = /^src\/([^/]+)\/capability\.ts$/.exec(e.from);
      if (m?.[1] === 'capability') return false;
      if (!m || !e.to.startsWith('src/')) return false;
      return !['src/capability', 'src/tools', 'src/llm', `src/${m[1]}`].some((room) => under(room)(e.to));
    },
  },
  {
    name: 'the tools (src/tools/) import nothing from the rooms that bring tools as capabilities (src/agents/, src/mcp/, src/hooks/, src/skills/): a capability builds its tools from tools/, never the reverse',
    forbids: (e) =>
      under('src/tools')(e.from) && ['src/agents', 'src/mcp', 'src/hooks', 'src/skills', 'src/background', 'src/capability'].some((room) => under(room)(e.to)),
  },
  {
    name: "src/ledger/ (the working-state ledger) is pure derivation: it imports only the message model (src/llm/messages.ts), the tool names (src/tools/toolNames.ts) and its own files, no package, no node: module, and not the run's world (src/runtime/): it keeps no registry, its sections come from the capability seam",
    forbids: (e) => under('src/ledger')(e.from) && !under('src/ledger')(e.to) && e.to !== 'src/llm/messages.ts' && e.to !== 'src/tools/toolNames.ts',
  },
  {
    name: "src/processes/ (the child process groups and the terminating signals) depends on nothing of the program but the run's world (src/runtime/: its signals, exit and per-run slots): tools, hooks, MCP and the front ends use it",
    forbids: (e) => under('src/processes')(e.from) && e.to.startsWith('src/') && !under('src/processes')(e.to) && !under('src/runtime')(e.to),
  },
  {
    name: "src/runtime/ (the run's world: environment, cwd, streams, signals, exit, per-run slots) depends on nothing of the program: every room reads its world there",
    forbids: (e) => under('src/runtime')(e.from) && e.to.startsWith('src/') && !under('src/runtime')(e.to),
  },
  {
    name: "src/history/ (the log, its records, the one reducer) imports nothing but the neutral messages (src/llm/messages.ts), and the types of the ledger's report (src/ledger/, itself pure) for a compaction's receipt: no package, no store, session, compaction or UI",
    forbids: (e) => under('src/history')(e.from) && !under('src/history')(e.to) && e.to !== 'src/llm/messages.ts' && !(e.typeOnly && under('src/ledger')(e.to)),
  },
  {
    name: 'src/store/ speaks the history vocabulary (src/history/), not the compaction engine (src/compaction/)',
    forbids: (e) => under('src/store')(e.from) && under('src/compaction')(e.to),
  },
  {
    name: "src/print/ (print mode's wire formats: Claude Code's stream-json, the input stream) knows no UI and no SQL: it maps the session's events",
    forbids: (e) => under('src/print')(e.from) && (isUi(e.to) || isSql(e.to)),
  },
  {
    name: 'only src/acp/ imports the ACP SDK (@agentclientprotocol/sdk), and src/acp/ knows no UI and no SQL: it drives sessions as the front ends do',
    forbids: (e) => (e.to.startsWith('@agentclientprotocol/') && !under('src/acp')(e.from)) || (under('src/acp')(e.from) && (isUi(e.to) || isSql(e.to))),
  },
  {
    name: "src/statusLine/ (the statusLine command) knows no UI and no SQL: the front end lends it the footer's figures and shows its line",
    forbids: (e) => under('src/statusLine')(e.from) && (isUi(e.to) || isSql(e.to)),
  },
  {
    name: 'src/protocol/ (the one event vocabulary from the session to every front end, and the views they render) is a leaf of types: it imports only types, from its own room and the low rooms whose data its events carry (llm/, history/, tools/, compaction/, agents/, config/, plan/), never the session or a front end',
    forbids: (e) =>
      under('src/protocol')(e.from) &&
      !under('src/protocol')(e.to) &&
      (!e.typeOnly || !['src/llm', 'src/history', 'src/tools', 'src/compaction', 'src/agents', 'src/config', 'src/plan'].some((room) => under(room)(e.to))),
  },
  {
    name: "src/trust/ (what the person approved) depends on nothing of the program but config and the run's world (src/runtime/): MCP and hooks ask it, never the reverse",
    forbids: (e) =>
      under('src/trust')(e.from) && e.to.startsWith('src/') && !under('src/trust')(e.to) && !under('src/config')(e.to) && !under('src/runtime')(e.to),
  },
  {
    name: 'src/media/ (images: decode, downscale, count) depends on nothing of the program: tools, MCP, compaction and the fake provider use it',
    forbids: (e) => under('src/media')(e.from) && e.to.startsWith('src/') && !under('src/media')(e.to),
  },
  {
    name: 'only src/media/ imports the image libraries (sharp, a native binary loaded on first use; image-size)',
    forbids: (e) => (e.to === 'sharp' || e.to === 'image-size') && !under('src/media')(e.from),
  },
  {
    name: "src/checkpoints/ (the working tree's checkpoints in a shadow git store outside the project) knows no UI and no SQL and nothing of the session: it runs git, and the session reaches it through its capability",
    forbids: (e) =>
      under('src/checkpoints')(e.from) && (isUi(e.to) || isSql(e.to) || under('src/session')(e.to) || under('src/commands')(e.to) || under('src/agent')(e.to)),
  },
  {
    name: 'src/web/ (fetching a page, HTML to Markdown) knows no UI and no SQL, and only it imports the HTML libraries (linkedom, @mozilla/readability, turndown)',
    forbids: (e) =>
      (under('src/web')(e.from) && (isUi(e.to) || isSql(e.to))) ||
      (['linkedom', '@mozilla/readability', 'turndown'].includes(e.to) && !under('src/web')(e.from)),
  },
  {
    name: 'src/btw/ (/btw: a side question answered from the context) is a capability and nothing more: it imports the seam (src/capability/), src/llm/, the prompt filler (src/promptText.ts) and its own room, and no package',
    forbids: (e) => under('src/btw')(e.from) && e.to !== 'src/promptText.ts' && !['src/capability', 'src/llm', 'src/btw'].some((room) => under(room)(e.to)),
  },
  {
    name: "src/sandbox/ (the OS sandbox Bash runs in) is the only importer of @anthropic-ai/sandbox-runtime, knows no UI and no SQL, and imports of the program only config/ (its settings), tools/ (the port it fills, shell.ts), processes/ and the run's world (runtime/): the tools never import it, bootstrap lends it",
    forbids: (e) =>
      (e.to === '@anthropic-ai/sandbox-runtime' && !under('src/sandbox')(e.from)) ||
      (under('src/sandbox')(e.from) &&
        e.to.startsWith('src/') &&
        !['src/sandbox', 'src/config', 'src/tools', 'src/processes', 'src/runtime'].some((room) => under(room)(e.to))) ||
      (under('src/sandbox')(e.from) && (isUi(e.to) || isSql(e.to))) ||
      (under('src/tools')(e.from) && under('src/sandbox')(e.to)),
  },
];

export interface Violation {
  rule: string;
  edge: ImportEdge;
}

export function layerViolations(edges: readonly ImportEdge[], rules: readonly Rule[] = LAYER_RULES): Violation[] {
  return rules.flatMap((rule) => edges.filter((e) => rule.forbids(e)).map((edge) => ({ rule: rule.name, edge })));
}

/**
 * The import cycles among src/ files: each strongly connected component of more than one file
 * (or a file importing itself), files sorted. `typeOnly` edges are left out unless asked for.
 */
export function importCycles(edges: readonly ImportEdge[], opts: { includeTypeOnly?: boolean } = {}): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    if (!e.to.startsWith('src/') || (e.typeOnly && !opts.includeTypeOnly)) continue;
    next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
    if (!next.has(e.to)) next.set(e.to, []);
  }
  // Tarjan's strongly connected components, iterative so a deep graph cannot overflow the stack
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let counter = 0;
  for (const start of [...next.keys()].sort()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; i: number }> = [{ node: start, i: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const targets = next.get(top.node)!;
      if (top.i < targets.length) {
        const to = targets[top.i++]!;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, i: 0 });
        } else if (onStack.has(to)) low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(top.node)!));
      if (low.get(top.node) === index.get(top.node)) {
        const component: string[] = [];
        let n: string;
        do {
          n = stack.pop()!;
          onStack.delete(n);
          component.push(n);
        } while (n !== top.node);
        if (component.length > 1 || targets.includes(top.node)) cycles.push(component.sort());
      }
    }
  }
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The modules a file imports: distinct targets of its `import` and `export … from` declarations (not `import()`). */
export function importCounts(edges: readonly ImportEdge[]): Map<string, number> {
  const modules = new Map<string, Set<string>>();
  for (const e of edges) {
    if (e.dynamic) continue;
    const set = modules.get(e.from) ?? new Set<string>();
    set.add(e.to);
    modules.set(e.from, set);
  }
  return new Map([...modules].map(([file, set]) => [file, set.size]));
}

/** The room of a file under src/ ("src/plan/todos.ts" → "plan"), undefined for a file at src/'s top. */
const roomOf = (file: string): string | undefined => /^src\/([^/]+)\//.exec(file)?.[1];

/**
 * For each capability room (a room with a src/<room>/capability.ts), the files outside it that
 * import it, leaving out `composition` (the list that puts every capability in) and the
 * vocabularies' type-only imports: the event protocol's (src/protocol/) and the seam's
 * (src/capability/). Rooms sorted, files sorted.
 */
export function capabilityRoomImporters(edges: readonly ImportEdge[], composition: string): Map<string, string[]> {
  const rooms = new Set(
    edges
      .flatMap((e) => [e.from, e.to])
      .flatMap((f) => {
        const m = /^src\/([^/]+)\/capability\.ts$/.exec(f);
        return m && m[1] !== 'capability' ? [m[1]!] : [];
      }),
  );
  const out = new Map<string, string[]>();
  for (const room of [...rooms].sort()) {
    const importers = new Set(
      edges
        .filter((e) => roomOf(e.to) === room && roomOf(e.from) !== room && e.from !== composition)
        .filter((e) => !(e.typeOnly && (roomOf(e.from) === 'protocol' || roomOf(e.from) === 'capability')))
        .map((e) => e.from),
    );
    out.set(room, [...importers].sort());
  }
  return out;
}
