// The turn's frame (session/turnFrame.ts): the extra tools a capability brings (MCP) join the
// frame when a turn starts, whatever their number; the same set again changes nothing (the cached
// prefix holds); their section joins the system prompt; an extra tool that may be cleared is
// listed for micro compaction.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ToolSet } from '../../src/capability/capability.js';
import { loadConfig } from '../../src/config/config.js';
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

function frames(sets: Array<ToolSet | undefined>): TurnFrames {
  const root = tempDir('turn-frame-');
  const cwd = join(root, 'project');
  const home = join(root, 'home');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  const config = loadConfig({ cwd, env: {}, flags: {}, home });
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
