import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { capabilityRoomImporters, importCounts, importCycles, importsOf, layerViolations, loadGraph, type ImportEdge } from './architecture/importGraph.js';

// docs/DESIGN.md's layer rules and "no import cycle", checked on the import graph of src/
// (static imports and re-exports, `import()` of a string literal, type-only imports too).

/**
 * Breaks of the rules that are known and owned elsewhere, each with what removes it. A new
 * break fails the test; an exception that no longer occurs is harmless, and is deleted here
 * with the change that removes it.
 */
const KNOWN_LAYER_EXCEPTIONS: Array<{ from: string; to: string; why: string }> = [];

const KNOWN_CYCLES: Array<{ files: string[]; why: string }> = [];

/** The files that may read the process's own environment, cwd and streams (issue 50: the rest read their run's world). */
const PROCESS_READERS: Array<{ file: string; why: string }> = [
  { file: 'src/runtime/world.ts', why: "processWorld(): the process's own world, which bin/agent.js passes to main" },
  {
    file: 'src/sandbox/runtime.ts',
    why: "the sandbox library builds a wrapped command's environment from the process's own: only the variables it adds over that are kept",
  },
  { file: 'src/ui/load.ts', why: "hides CI from Ink while Ink's modules load: Ink reads the process's environment when imported" },
];

/** DESIGN's "no file in src/ over ~400 lines", with the tilde's room. */
const MAX_LINES = 420;

/** Issue 29's "Done when": the session composes, the capabilities and the assembly wire. */
const MAX_SESSION_IMPORTS = 18;
const MAX_OPTIONAL_DEPS = 4;

/** Issue 45: no file imports more than this many modules (its `import` and `export … from` declarations). */
const MAX_MODULE_IMPORTS = 24;

/** Issue 45: a capability room is imported by at most this many files outside it (the composition list and the vocabularies' types aside). */
const MAX_ROOM_IMPORTERS = 3;
/** The list that puts every capability in: the one file that names them all. */
const COMPOSITION = 'src/capabilityList.ts';

/**
 * Capability rooms still reached from more files than MAX_ROOM_IMPORTERS, each with its importers
 * as they stand and what removes them. A new importer fails the test; a room that shrinks below
 * the limit is deleted here with the change that shrinks it.
 */
const KNOWN_ROOM_IMPORTERS: Array<{ room: string; files: string[]; why: string }> = [];

/** Files still over MAX_MODULE_IMPORTS, with their count as it stands and what removes them. */
const KNOWN_MANY_IMPORTS: Array<{ file: string; count: number; why: string }> = [];

/** Issue 45: the UiController members that named one capability each (the front ends ask the seam's views and keys instead). */
const PER_CAPABILITY_UI = ['todos', 'taskRows', 'backgroundCommand', 'childTranscript'];

/** Issue 45: the context controller split into the turn's value and the compactor; what is left of it (if anything) stays under this. */
const CONTEXT_CONTROL = 'src/session/contextControl.ts';
const MAX_CONTEXT_CONTROL_LINES = 250;

/** Issue 45's "Done when": tools close over what their session lends them; the loop takes what a turn needs. */
const MAX_TOOL_CONTEXT_FIELDS = 4;
const MAX_LOOP_OPTIONS = 12;

/** The members of an exported interface, counted from the source text (one per line at two spaces' indent). */
function membersOf(file: string, name: string): string[] {
  const text = readFileSync(resolve(import.meta.dirname, '..', file), 'utf8');
  const body = new RegExp(`export interface ${name} \\{([\\s\\S]*?)\\n\\}`).exec(text)?.[1];
  expect(body, `${file} declares ${name}`).toBeDefined();
  return [...(body ?? '').matchAll(/^ {2}(?:readonly )?(\w+)\??[:(]/gm)].map((m) => m[1] ?? '');
}

/**
 * The names a function body uses above their own `const`/`let`/`function` line (outside comments
 * and strings; a property's name, `x.name` or `name:`, is no use).
 */
function usedAboveDeclaration(body: string): string[] {
  const code = body
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '))
    .replace(/\/\/.*$/gm, '')
    .replace(/'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g, (c) => c.replace(/[^\n]/g, ' '));
  const declared = [...code.matchAll(/^ {2}(?:const|let|function) (\w+)|^ {2}const \{ ([\w, ]+) \}/gm)].flatMap((m) =>
    (m[1] ?? m[2] ?? '').split(',').map((name) => ({ name: name.trim(), at: m.index ?? 0 })),
  );
  return declared.flatMap(({ name, at }) =>
    [...code.slice(0, at).matchAll(new RegExp(`(?<![.\\w])${name}\\b(?!\\??\\s*:(?!:))`, 'g'))].length > 0 ? [name] : [],
  );
}

const isKnownBreak = (e: ImportEdge): boolean => KNOWN_LAYER_EXCEPTIONS.some((k) => k.from === e.from && k.to === e.to);
const isKnownCycle = (files: string[]): boolean => KNOWN_CYCLES.some((k) => k.files.join('\n') === files.join('\n'));

describe('the import graph of src/', () => {
  const graph = loadGraph(resolve(import.meta.dirname, '..'));

  it('is read whole: static, dynamic and type-only imports, packages and files', () => {
    expect(graph).toContainEqual({ from: 'src/llm/anthropic.ts', to: '@anthropic-ai/sdk', typeOnly: false, dynamic: false });
    expect(graph).toContainEqual({ from: 'src/cli.ts', to: 'src/print.ts', typeOnly: false, dynamic: true });
    expect(graph).toContainEqual({ from: 'src/cli.ts', to: 'commander', typeOnly: false, dynamic: false });
    expect(graph).toContainEqual({ from: 'src/store/open.ts', to: 'better-sqlite3', typeOnly: true, dynamic: false });
    expect(graph.some((e) => e.typeOnly && e.to === 'src/protocol/views.ts')).toBe(true);
  });

  it('keeps the layer rules of docs/DESIGN.md', () => {
    const breaks = layerViolations(graph).filter((v) => !isKnownBreak(v.edge));
    expect(breaks.map((v) => `${v.edge.from} → ${v.edge.to}: ${v.rule}`)).toEqual([]);
  });

  it('has no import cycle, type-only imports included', () => {
    const cycles = importCycles(graph, { includeTypeOnly: true }).filter((c) => !isKnownCycle(c));
    expect(cycles).toEqual([]);
  });

  it('has no import cycle at run time, not even a known one', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it('loads SQLite in one place: only src/store/sqlite.ts calls require(), the way the binding is chosen at run time', () => {
    // the graph sees imports, not require(): a second loader would slip past the layer rules
    // (a createRequire in src/store/open.ts fails this test)
    const root = resolve(import.meta.dirname, '..');
    const files = [...new Set(graph.map((e) => e.from))];
    const loaders = files.filter((f) => /\bcreateRequire\b|\brequire\(/.test(readFileSync(resolve(root, f), 'utf8')));
    expect(loaders).toEqual(['src/store/sqlite.ts']);
  });

  it('keeps every file small enough to read whole (about 400 lines at most)', () => {
    const root = resolve(import.meta.dirname, '..');
    const files = [...new Set(graph.map((e) => e.from))];
    expect(files.length).toBeGreaterThan(100);
    const long = files.map((f) => ({ f, lines: readFileSync(resolve(root, f), 'utf8').split('\n').length })).filter((x) => x.lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it('has one event vocabulary: the event unions are declared in src/protocol/ only, and no room re-exports another room', () => {
    // issue 29: one union from the session to every front end (Codex's EventMsg), so a front end
    // cannot import a narrower or a private copy; an `export type XEvent =` in src/session/ or a
    // `export { … } from '../…'` in src/ui/controller.ts fails this test
    const root = resolve(import.meta.dirname, '..');
    const files = [...new Set(graph.map((e) => e.from))];
    // (src/llm/'s StreamEvent is the provider's wire under the loop, not something a front end sees)
    const declaring = files.filter(
      (f) => !f.startsWith('src/llm/') && /^export type \w*Event\b[^=]*=\s*\n?\s*\|/m.test(readFileSync(resolve(root, f), 'utf8')),
    );
    expect(declaring.length).toBeGreaterThan(0);
    expect(declaring.filter((f) => !f.startsWith('src/protocol/'))).toEqual([]);
    const reexports = files.filter((f) => /^export (?:type )?(?:\{[^}]*\}|\*) from '\.\.\//m.test(readFileSync(resolve(root, f), 'utf8')));
    expect(reexports).toEqual([]);
  });

  it("reads the process's world in one place: no process.env, process.stdout, process.stderr, process.stdin, process.cwd() or process.chdir() outside src/runtime/world.ts", () => {
    // issue 50: a run's environment, working directory and streams are its world's (main(argv,
    // io)), so two runs in one process (the in-process test harness) never see each other's; a
    // `process.env.X` or `process.stdout.write` anywhere else under src/ fails this test, and so does
    // a `process.chdir` (ACP's sessions changed the process's directory, every run's at once)
    const root = resolve(import.meta.dirname, '..');
    // (every file of src/: those that import nothing appear only as an import's target)
    const files = [...new Set(graph.flatMap((e) => [e.from, e.to]).filter((f) => f.startsWith('src/')))];
    const READS = /\bprocess\.(?:env\b|stdout\b|stderr\b|stdin\b|cwd\(\)|chdir\()/;
    const readers = files.filter((f) =>
      readFileSync(resolve(root, f), 'utf8')
        .split('\n')
        .some((line) => READS.test(line) && !/^\s*(?:\/\/|\*)/.test(line)),
    );
    expect(readers.length).toBeGreaterThan(0);
    expect(readers.filter((f) => !PROCESS_READERS.some((r) => r.file === f))).toEqual([]);
  });

  it('keeps the session a facade: session.ts imports at most 18 modules, SessionDeps has at most 4 optional fields', () => {
    // the wiring lives in the capabilities and session/assemble.ts (issue 29); one more import in
    // session.ts, or one more optional dependency (a capability passed by name), fails this test
    const modules = new Set(graph.filter((e) => e.from === 'src/session/session.ts').map((e) => e.to));
    expect(modules.size).toBeLessThanOrEqual(MAX_SESSION_IMPORTS);
    const text = readFileSync(resolve(import.meta.dirname, '../src/session/sessionDeps.ts'), 'utf8');
    const body = /export interface SessionDeps \{([\s\S]*?)\n\}/.exec(text)?.[1];
    expect(body, 'src/session/sessionDeps.ts declares SessionDeps').toBeDefined();
    const optional = [...(body ?? '').matchAll(/^ {2}(\w+)\?:/gm)].map((m) => m[1]);
    expect(optional.length, `optional: ${optional.join(', ')}`).toBeLessThanOrEqual(MAX_OPTIONAL_DEPS);
  });

  it('builds the tools per session: ToolContext has at most 4 fields, LoopOptions at most 12 members', () => {
    // what a tool uses of its session (the file tracker, the archive, the editor's files…) it closes
    // over when the session builds it; one more per-call field, or one more loop option, fails this test
    const fields = membersOf('src/tools/types.ts', 'ToolContext');
    expect(fields.length, `ToolContext: ${fields.join(', ')}`).toBeLessThanOrEqual(MAX_TOOL_CONTEXT_FIELDS);
    const options = membersOf('src/agent/host.ts', 'LoopOptions');
    expect(options.length, `LoopOptions: ${options.join(', ')}`).toBeLessThanOrEqual(MAX_LOOP_OPTIONS);
  });
});

describe('the capability seam (issue 45)', () => {
  const graph = loadGraph(resolve(import.meta.dirname, '..'));

  it(`keeps every file's imports few: at most ${MAX_MODULE_IMPORTS} modules each`, () => {
    // a file that names every capability (bootstrap building them by hand) or every view fails this test
    const counts = importCounts(graph);
    expect(counts.get('src/session/session.ts')).toBeGreaterThan(5);
    const known = (f: string, n: number): boolean => KNOWN_MANY_IMPORTS.some((k) => k.file === f && n <= k.count);
    expect([...counts].filter(([f, n]) => n > MAX_MODULE_IMPORTS && !known(f, n)).map(([f, n]) => `${f}: ${n}`)).toEqual([]);
  });

  it(`reaches each capability room from at most ${MAX_ROOM_IMPORTERS} files outside it, the composition list aside`, () => {
    // a front end or command that names a capability's module (rather than asking the seam) fails this test
    const importers = capabilityRoomImporters(graph, COMPOSITION);
    expect([...importers.keys()]).toEqual(expect.arrayContaining(['background', 'mcp', 'plan', 'skills']));
    const over = [...importers]
      .filter(([, files]) => files.length > MAX_ROOM_IMPORTERS)
      .filter(([room, files]) => {
        const known = KNOWN_ROOM_IMPORTERS.find((k) => k.room === room);
        return !known || files.some((f) => !known.files.includes(f));
      });
    expect(over.map(([room, files]) => `${room}: ${files.join(', ')}`)).toEqual([]);
  });

  it('keeps the front ends asking the seam: UiController names no capability (no todos, taskRows, backgroundCommand, childTranscript)', () => {
    // the task list, the /tasks panel, Ctrl+B and a sub-agent's transcript are views and keys on the seam
    // (UiController.view, press); a member named for one capability brought back fails this test
    const members = membersOf('src/ui/controller.ts', 'UiController');
    expect(members).toContain('submit');
    expect(members.filter((m) => PER_CAPABILITY_UI.includes(m))).toEqual([]);
  });

  it(`splits the context controller: ${CONTEXT_CONTROL} is gone or under ${MAX_CONTEXT_CONTROL_LINES} lines`, () => {
    // the system prompt, the model and effort, the engine's lifetime, the commit path and the gauge in
    // one class again (a controller grown back past the limit) fails this test
    const path = resolve(import.meta.dirname, '..', CONTEXT_CONTROL);
    const lines = existsSync(path) ? readFileSync(path, 'utf8').split('\n').length : 0;
    expect(lines, CONTEXT_CONTROL).toBeLessThan(MAX_CONTEXT_CONTROL_LINES);
  });

  it('assembles a session in dependency order: no name in assemble() is used above the line that declares it', () => {
    // a part read through a closure before it exists (`() => context.config` above `const context`)
    // fails this test: each part is built from the ones above it, a real cycle through a Late cell
    const text = readFileSync(resolve(import.meta.dirname, '../src/session/assemble.ts'), 'utf8');
    const body = /\nexport function assemble\([^)]*\)[^{]*\{([\s\S]*?)\n\}/.exec(text)?.[1];
    expect(body, 'src/session/assemble.ts declares assemble()').toBeDefined();
    expect(usedAboveDeclaration(body ?? '')).toEqual([]);
  });

  it('keeps no process-global ledger registry: the sections come from the seam', () => {
    // a registry in a per-run slot (ledger/registry.ts's ledgerSections()) brought back fails this test
    const root = resolve(import.meta.dirname, '..');
    const ledgerFiles = [...new Set(graph.flatMap((e) => [e.from, e.to]).filter((f) => f.startsWith('src/ledger/')))];
    expect(ledgerFiles.length).toBeGreaterThan(3);
    expect(ledgerFiles.filter((f) => /\bslot\(|\bregister\(/.test(readFileSync(resolve(root, f), 'utf8')))).toEqual([]);
  });

  it("draws a fresh session's first frame before the runtime loads: src/interactive.ts reaches the database, the session and the tools only through import()", () => {
    // what interactive.ts loads before the app's first frame: its imports at run time, followed, dynamic ones left out
    const loaded = new Set<string>(['src/interactive.ts']);
    for (const file of loaded) for (const e of graph) if (e.from === file && !e.typeOnly && !e.dynamic) loaded.add(e.to);
    const runtime = [...loaded].filter(
      (f) =>
        ['better-sqlite3', 'src/bootstrap.ts', 'src/sessionController.ts', 'src/session/session.ts', 'src/tools/registry.ts'].includes(f) ||
        f.startsWith('src/store/'),
    );
    expect(runtime).toEqual([]);
    // the app and the configuration are among what it loads: the walk follows the graph
    expect(loaded.has('src/ui/load.ts') && loaded.has('src/config/config.ts')).toBe(true);
  });
});

describe('the checks themselves', () => {
  const edge = (from: string, to: string, over: Partial<ImportEdge> = {}): ImportEdge => ({ from, to, typeOnly: false, dynamic: false, ...over });

  it('report every kind of layer break, type-only imports too', () => {
    const fake = [
      edge('src/llm/anthropic.ts', '@anthropic-ai/sdk'),
      edge('src/llm/openai.ts', 'openai'),
      edge('src/store/open.ts', 'better-sqlite3'),
      edge('src/ui/app.tsx', 'ink'),
      edge('src/tools/bash.ts', 'openai'),
      edge('src/session/session.ts', 'better-sqlite3'),
      edge('src/agent/loop.ts', 'ink'),
      edge('src/compaction/engine.ts', 'src/store/store.ts', { typeOnly: true }),
      edge('src/session/session.ts', 'src/ui/controller.ts', { typeOnly: true }),
      edge('src/tools/recall.ts', 'src/store/index.ts'),
      edge('src/llm/responses.ts', 'openai'),
      edge('src/mcp/client.ts', '@modelcontextprotocol/sdk/client/index.js'),
      edge('src/tools/mcpTool.ts', '@modelcontextprotocol/sdk/types.js', { typeOnly: true }),
      edge('src/hooks/run.ts', 'src/store/store.ts'),
      edge('src/agents/task.ts', 'ink'),
      edge('src/mcp/servers.ts', 'better-sqlite3'),
      edge('src/trust/projectTrust.ts', 'src/config/config.ts'),
      edge('src/trust/projectTrust.ts', 'src/session/session.ts', { typeOnly: true }),
      edge('src/store/types.ts', 'better-sqlite3', { typeOnly: true }),
      edge('src/doctor/checks.ts', 'src/store/index.ts'),
      edge('src/doctor/checks.ts', 'src/config/config.ts'),
      edge('src/doctor/checks.ts', 'src/store/sqlite.ts'),
      edge('src/doctor/report.ts', 'ink'),
      edge('src/doctor/checks.ts', 'better-sqlite3', { typeOnly: true }),
      edge('src/skills/discovery.ts', 'src/store/store.ts', { typeOnly: true }),
      edge('src/skills/skillTool.ts', 'ink'),
      edge('src/skills/listing.ts', 'src/tools/toolNames.ts'),
      edge('src/plan/todos.ts', 'src/store/store.ts'),
      edge('src/plan/todoWrite.ts', 'src/ui/theme.ts'),
      edge('src/plan/todos.ts', 'src/tools/toolNames.ts'),
      edge('src/capability/capability.ts', 'src/tools/types.ts', { typeOnly: true }),
      edge('src/capability/capability.ts', 'src/tools/registry.ts'),
      edge('src/agents/capability.ts', 'src/capability/capability.ts', { typeOnly: true }),
      edge('src/agents/capability.ts', 'src/agents/taskTool.ts'),
      edge('src/agents/capability.ts', 'src/tools/registry.ts'),
      edge('src/agents/capability.ts', 'src/llm/messages.ts'),
      edge('src/agents/capability.ts', 'src/session/children.ts', { typeOnly: true }),
      edge('src/mcp/capability.ts', 'src/config/config.ts'),
      edge('src/tools/registry.ts', 'src/agents/taskTool.ts'),
      // the Skill tool is the skills capability's: tools/ names no skill type, not even as a type
      edge('src/tools/types.ts', 'src/skills/types.ts', { typeOnly: true }),
      edge('src/skills/capability.ts', 'src/agents/agents.ts', { typeOnly: true }),
      edge('src/ledger/derive.ts', 'src/llm/messages.ts', { typeOnly: true }),
      edge('src/ledger/render.ts', 'src/compaction/tokens.ts', { typeOnly: true }),
      edge('src/ledger/derive.ts', 'node:fs'),
      edge('src/ledger/registry.ts', 'src/runtime/world.ts'),
      edge('src/processes/groups.ts', 'src/log.ts'),
      edge('src/tools/bash.ts', 'src/processes/groups.ts'),
      edge('src/history/reduce.ts', 'src/llm/messages.ts', { typeOnly: true }),
      edge('src/history/reduce.ts', 'src/history/records.ts'),
      edge('src/history/reduce.ts', 'src/llm/validate.ts'),
      edge('src/history/view.ts', 'src/compaction/types.ts', { typeOnly: true }),
      edge('src/history/view.ts', 'src/store/derive.ts'),
      edge('src/history/view.ts', 'zod'),
      edge('src/history/compaction.ts', 'src/ledger/types.ts', { typeOnly: true }),
      edge('src/history/compaction.ts', 'src/ledger/probes.ts'),
      edge('src/store/codec.ts', 'src/history/records.ts', { typeOnly: true }),
      edge('src/store/codec.ts', 'src/compaction/types.ts', { typeOnly: true }),
      edge('src/media/prepare.ts', 'src/media/limits.ts'),
      edge('src/media/prepare.ts', 'src/tools/format.ts'),
      edge('src/tools/fileRead.ts', 'src/media/prepare.ts'),
      edge('src/tools/fileRead.ts', 'sharp', { dynamic: true }),
      edge('src/web/page.ts', 'turndown'),
      edge('src/web/page.ts', 'src/ui/format.ts'),
      edge('src/tools/webFetch.ts', 'linkedom'),
      edge('src/print/claudeStream.ts', 'src/ui/app.tsx'),
      edge('src/print/claudeStream.ts', 'src/store/store.ts', { typeOnly: true }),
      edge('src/print/claudeShapes.ts', 'src/session/protocol.ts', { typeOnly: true }),
      edge('src/acp/agent.ts', '@agentclientprotocol/sdk'),
      edge('src/print.ts', '@agentclientprotocol/sdk'),
      edge('src/acp/agent.ts', 'ink'),
      edge('src/statusLine/follow.ts', 'src/ui/controller.ts', { typeOnly: true }),
      edge('src/btw/capability.ts', 'src/llm/provider.ts'),
      edge('src/btw/capability.ts', 'src/session/session.ts', { typeOnly: true }),
      edge('src/btw/ask.ts', 'node:fs'),
    ];
    expect(layerViolations(fake).map((v) => `${v.edge.from} → ${v.edge.to}`)).toEqual([
      'src/tools/bash.ts → openai',
      'src/tools/mcpTool.ts → @modelcontextprotocol/sdk/types.js',
      'src/session/session.ts → better-sqlite3',
      'src/mcp/servers.ts → better-sqlite3',
      'src/doctor/checks.ts → better-sqlite3',
      'src/agent/loop.ts → ink',
      'src/compaction/engine.ts → src/store/store.ts',
      'src/session/session.ts → src/ui/controller.ts',
      'src/tools/recall.ts → src/store/index.ts',
      'src/hooks/run.ts → src/store/store.ts',
      'src/agents/task.ts → ink',
      'src/mcp/servers.ts → better-sqlite3',
      'src/skills/discovery.ts → src/store/store.ts',
      'src/skills/skillTool.ts → ink',
      'src/plan/todos.ts → src/store/store.ts',
      'src/plan/todoWrite.ts → src/ui/theme.ts',
      'src/doctor/checks.ts → src/store/sqlite.ts',
      'src/doctor/report.ts → ink',
      'src/doctor/checks.ts → better-sqlite3',
      // a value import of better-sqlite3, even in src/store/: only sqlite.ts loads a binding, at run time
      'src/store/open.ts → better-sqlite3',
      'src/session/session.ts → better-sqlite3',
      'src/mcp/servers.ts → better-sqlite3',
      'src/capability/capability.ts → src/tools/registry.ts',
      'src/agents/capability.ts → src/session/children.ts',
      'src/mcp/capability.ts → src/config/config.ts',
      'src/skills/capability.ts → src/agents/agents.ts',
      'src/btw/capability.ts → src/session/session.ts',
      'src/tools/registry.ts → src/agents/taskTool.ts',
      'src/tools/types.ts → src/skills/types.ts',
      'src/ledger/render.ts → src/compaction/tokens.ts',
      'src/ledger/derive.ts → node:fs',
      'src/ledger/registry.ts → src/runtime/world.ts',
      'src/processes/groups.ts → src/log.ts',
      'src/history/reduce.ts → src/llm/validate.ts',
      'src/history/view.ts → src/compaction/types.ts',
      'src/history/view.ts → src/store/derive.ts',
      'src/history/view.ts → zod',
      'src/history/compaction.ts → src/ledger/probes.ts',
      'src/store/codec.ts → src/compaction/types.ts',
      'src/print/claudeStream.ts → src/ui/app.tsx',
      'src/print/claudeStream.ts → src/store/store.ts',
      'src/print.ts → @agentclientprotocol/sdk',
      'src/acp/agent.ts → ink',
      'src/statusLine/follow.ts → src/ui/controller.ts',
      'src/trust/projectTrust.ts → src/session/session.ts',
      'src/media/prepare.ts → src/tools/format.ts',
      'src/tools/fileRead.ts → sharp',
      'src/web/page.ts → src/ui/format.ts',
      'src/tools/webFetch.ts → linkedom',
      'src/btw/capability.ts → src/session/session.ts',
      'src/btw/ask.ts → node:fs',
    ]);
  });

  it('count the modules a file imports, and the files outside a capability room that import it', () => {
    const fake = [
      edge('src/a.ts', 'src/plan/todos.ts'),
      edge('src/a.ts', 'src/plan/todos.ts', { typeOnly: true }),
      edge('src/a.ts', 'ink'),
      edge('src/a.ts', 'src/lazy.ts', { dynamic: true }),
      edge('src/plan/capability.ts', 'src/plan/todos.ts'),
      edge('src/ui/list.ts', 'src/plan/todos.ts', { typeOnly: true }),
      edge('src/protocol/events.ts', 'src/plan/todos.ts', { typeOnly: true }),
      edge('src/protocol/views.ts', 'src/plan/plans.ts'),
      edge('src/capability/capability.ts', 'src/plan/todos.ts', { typeOnly: true }),
      edge('src/capabilityList.ts', 'src/plan/capability.ts'),
      edge('src/web/page.ts', 'src/tools/types.ts'),
    ];
    expect(importCounts(fake).get('src/a.ts')).toBe(2);
    expect(Object.fromEntries(capabilityRoomImporters(fake, 'src/capabilityList.ts'))).toEqual({
      plan: ['src/a.ts', 'src/protocol/views.ts', 'src/ui/list.ts'],
    });
  });

  it('find cycles through dynamic imports, and type-only ones only when asked', () => {
    const fake = [
      edge('src/cli.ts', 'src/print.ts', { dynamic: true }),
      edge('src/print.ts', 'src/bootstrap.ts'),
      edge('src/bootstrap.ts', 'src/cli.ts'),
      edge('src/a.ts', 'src/b.ts'),
      edge('src/b.ts', 'src/a.ts', { typeOnly: true }),
      edge('src/self.ts', 'src/self.ts'),
      edge('src/x.ts', 'src/y.ts'),
      edge('src/x.ts', 'ink'),
    ];
    expect(importCycles(fake)).toEqual([['src/bootstrap.ts', 'src/cli.ts', 'src/print.ts'], ['src/self.ts']]);
    expect(importCycles(fake, { includeTypeOnly: true })).toEqual([
      ['src/a.ts', 'src/b.ts'],
      ['src/bootstrap.ts', 'src/cli.ts', 'src/print.ts'],
      ['src/self.ts'],
    ]);
  });

  it('read each form of import and tell type-only ones apart', () => {
    const text = [
      "import a from 'pkg-a';",
      "import type { B } from './b.js';",
      "import { type C, type D } from './c.js';",
      "import { type E, f } from './e.js';",
      "import './side-effect.js';",
      "export { g } from './g.js';",
      "export type { H } from './h.js';",
      "export * from './star.js';",
      "type M = typeof import('./m.js');",
      "const lazy = () => import('./lazy.js');",
      'const notLiteral = (p: string) => import(p);',
    ].join('\n');
    expect(importsOf('x.ts', text)).toEqual([
      { spec: 'pkg-a', typeOnly: false, dynamic: false },
      { spec: './b.js', typeOnly: true, dynamic: false },
      { spec: './c.js', typeOnly: true, dynamic: false },
      { spec: './e.js', typeOnly: false, dynamic: false },
      { spec: './side-effect.js', typeOnly: false, dynamic: false },
      { spec: './g.js', typeOnly: false, dynamic: false },
      { spec: './h.js', typeOnly: true, dynamic: false },
      { spec: './star.js', typeOnly: false, dynamic: false },
      { spec: './m.js', typeOnly: true, dynamic: true },
      { spec: './lazy.js', typeOnly: false, dynamic: true },
    ]);
  });
});
