// The turn's frame (session/turnFrame.ts): the extra tools a capability brings (MCP) join the
// frame when a turn starts, whatever their number; the same set again changes nothing (the cached
// prefix holds); their section joins the system prompt; an extra tool that may be cleared is
// listed for micro compaction.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ToolSet } from '../../src/capability/capability.js';
import { type Config, loadConfig } from '../../src/config/config.js';
import type { Provider } from '../../src/llm/provider.js';
import { TurnFrames } from '../../src/session/turnFrame.js';
import type { AnyTool } from '../../src/tools/types.js';
import { tempDir } from '../tempDirs.js';

const tool = (name: string, kind: AnyTool['kind'] = 'read'): AnyTool =>
  ({
    name,
    description: `the ${name} tool`,
    inputSchema: { type: 'object' },
    kind,
    parse: (i: unknown) => i,
    summarize: () => name,
    run: async () => ({ content: '', isError: false }),
  }) as AnyTool;

/** A project and a home of the test's own, and the configuration read there. */
function workspace(): { cwd: string; config: Config } {
  const root = tempDir('turn-frame-');
  const cwd = join(root, 'project');
  const home = join(root, 'home');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  return { cwd, config: loadConfig({ cwd, env: {}, flags: {}, home }) };
}

function frames(sets: Array<ToolSet | undefined>): TurnFrames {
  const { config } = workspace();
  let turn = 0;
  return new TurnFrames(
    {
      tools: [tool('Read')],
      caps: { systemSection: () => '', turnStart: async () => false, toolSet: () => sets[turn++] },
    },
    config,
    {} as Provider,
  );
}

describe("the turn's frame", () => {
  it('takes one extra tool, then two, then none, and keeps the frame when the same set comes again', async () => {
    const one: ToolSet = { tools: [tool('mcp__db__query', 'execute')], system: 'The db server is connected.' };
    const x = tool('mcp__a__x');
    const f = frames([
      one,
      { ...one },
      { tools: [x, tool('mcp__a__y')], system: '' },
      { tools: [x, tool('mcp__a__z')], system: '' },
      { tools: [], system: '' },
    ]);
    const base = f.current;
    expect(await f.startTurn([])).toBe(true);
    expect(f.current.tools.map((t) => t.name)).toEqual(['Read', 'mcp__db__query']);
    expect(f.current.specs.map((s) => s.name)).toEqual(['Read', 'mcp__db__query']);
    expect(f.current.system).toContain('The db server is connected.');
    // the same tools and section again: nothing is rebuilt
    const taken = f.current;
    expect(await f.startTurn([])).toBe(false);
    expect(f.current).toBe(taken);
    expect(await f.startTurn([])).toBe(true);
    expect(f.current.tools.map((t) => t.name)).toEqual(['Read', 'mcp__a__x', 'mcp__a__y']);
    expect(f.current.system).not.toContain('The db server is connected.');
    // as many tools, one of them another
    expect(await f.startTurn([])).toBe(true);
    expect(f.current.tools.map((t) => t.name)).toEqual(['Read', 'mcp__a__x', 'mcp__a__z']);
    expect(await f.startTurn([])).toBe(true);
    expect(f.current.tools.map((t) => t.name)).toEqual(['Read']);
    expect(f.current.system).toBe(base.system);
  });
});

describe("the turn's frame, beyond its extra tools", () => {
  function framed(opts: { sections?: boolean[]; sets?: Array<ToolSet | undefined> } = {}) {
    const { cwd, config } = workspace();
    let section = 'first section';
    let turn = 0;
    const f = new TurnFrames(
      {
        tools: [tool('Read'), tool('Bash', 'execute')],
        caps: {
          systemSection: () => section,
          turnStart: async () => opts.sections?.[turn] ?? false,
          // called once a turn, after turnStart: the turn is counted here
          toolSet: () => {
            const set = opts.sets?.[turn];
            turn++;
            return set;
          },
        },
      },
      config,
      {} as Provider,
    );
    return { f, cwd, config, setSection: (s: string) => void (section = s) };
  }

  it("a capability's changed section rebuilds the system prompt at the turn's start (the gauge is told only of tools); none kept otherwise", async () => {
    const { f, setSection } = framed({ sections: [true, false] });
    expect(f.current.system).toContain('first section');
    setSection('second section');
    expect(await f.startTurn([])).toBe(false);
    expect(f.current.system).toContain('second section');
    setSection('third section');
    expect(await f.startTurn([])).toBe(false);
    expect(f.current.system).not.toContain('third section');
  });

  it('an extra tool that may be cleared joins the compactable list once; the same tools under another section are taken', async () => {
    const q = tool('mcp__db__query');
    const { f } = framed({
      sets: [
        { tools: [q], system: 'one' },
        { tools: [q], system: 'two' },
      ],
    });
    const before = [...f.compactable];
    expect(await f.startTurn([])).toBe(true);
    expect(f.compactable).toEqual([...before, 'mcp__db__query']);
    expect(await f.startTurn([])).toBe(true);
    expect(f.current.system).toContain('two');
    expect(f.compactable.filter((n) => n === 'mcp__db__query')).toHaveLength(1);
    // no tool set at all: nothing changes
    expect(await f.startTurn([])).toBe(false);
  });

  it('another configuration keeps the system prompt; another model rebuilds it naming the model; a rebuild reads the instruction files again', async () => {
    const { f, cwd, config } = framed();
    const system = f.current.system;
    f.configure({ ...config, maxOutputTokens: 1_000 });
    expect(f.current.system).toBe(system);
    expect(f.current.config.maxOutputTokens).toBe(1_000);
    f.switchModel({ ...config, model: { ...config.model, name: 'some-other-model' } }, {} as Provider);
    expect(f.current.system).toContain('some-other-model');
    writeFileSync(join(cwd, 'AGENTS.md'), 'Always run the linter.\n');
    expect(f.current.system).not.toContain('Always run the linter.');
    f.rebuildSystem();
    expect(f.current.system).toContain('Always run the linter.');
    expect(f.instructionFiles().length).toBeGreaterThan(0);
  });
});
