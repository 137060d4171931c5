import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadAgents, parseAgentFile } from '../../src/agents/agentFiles.js';
import { AgentCatalog, childToolNames, EXPLORE_AGENT, READ_ONLY_TOOLS } from '../../src/agents/agents.js';
import type { SubagentHost } from '../../src/agents/host.js';
import { createTaskTool } from '../../src/agents/taskTool.js';
import { ToolInputError } from '../../src/tools/types.js';
import { nextChildState, progressLine, queuedChild } from '../../src/agents/childState.js';
import { capReport } from '../../src/agents/report.js';
import { inWorld, processWorld } from '../../src/runtime/world.js';
import { tempDir } from '../tempDirs.js';

const KNOWN = ['FileRead', 'Edit', 'Write', 'Bash', 'Grep', 'Glob', 'Recall', 'Task'];
const ALL = ['FileRead', 'Edit', 'Write', 'Bash', 'Grep', 'Glob', 'Recall', 'Task'];

describe('agent files', () => {
  it("read Claude Code's frontmatter: tools by its names (comma list or YAML list), model, effort, maxTurns", () => {
    const r = parseAgentFile(
      '---\nname: rev\ndescription: Reviews.\ntools: Read, MultiEdit, Edit, Bash(git diff:*)\nmodel: haiku\neffort: high\nmaxTurns: 7\n---\nBe strict.\n',
      'rev.md',
      'claude-project',
      KNOWN,
      parseYaml,
    );
    expect(r.warnings).toEqual([]);
    expect(r.agent).toMatchObject({
      name: 'rev',
      description: 'Reviews.',
      prompt: 'Be strict.',
      tools: ['FileRead', 'Edit', 'Bash'],
      model: 'haiku',
      effort: 'high',
      maxSteps: 7,
    });
    const list = parseAgentFile('---\nname: l\ndescription: d\ntools:\n  - Grep\n  - LS\nmodel: inherit\n---\nBody', 'l.md', 'project', KNOWN, parseYaml);
    expect(list.agent).toMatchObject({ tools: ['Grep', 'Glob'] });
    expect(list.agent?.model).toBeUndefined();
  });

  it('skip a bad file with a warning naming it and the field, and keep a file whose unknown tools are only ignored', () => {
    const cases: Array<[string, RegExp]> = [
      ['no frontmatter here', /x\.md: no frontmatter/],
      ['---\nname: a\ndescription: [oops\n---\nB', /x\.md: the frontmatter is not valid YAML/],
      ['---\nname: a b\ndescription: d\n---\nB', /x\.md: field "name" must be a word/],
      ['---\nname: a\n---\nB', /x\.md: field "description" is missing/],
      ['---\nname: a\ndescription: d\n---\n', /x\.md: the body .* is empty/],
      ['---\nname: a\ndescription: d\nmaxSteps: 0\n---\nB', /x\.md: field "maxSteps" must be a positive whole number \(got 0\)/],
      ['---\nname: a\ndescription: d\ntools: 5\n---\nB', /x\.md: field "tools" must be/],
    ];
    for (const [text, why] of cases) {
      const r = parseAgentFile(text, 'x.md', 'project', KNOWN, parseYaml);
      expect(r.agent, text).toBeUndefined();
      expect(r.warnings.join('\n'), text).toMatch(why);
      expect(r.warnings.join('\n')).toMatch(/the agent is skipped/);
    }
    const partly = parseAgentFile('---\nname: a\ndescription: d\ntools: Read, Teleport\n---\nB', 'x.md', 'project', KNOWN, parseYaml);
    expect(partly.agent?.tools).toEqual(['FileRead']);
    expect(partly.warnings).toEqual([expect.stringMatching(/x\.md: field "tools": unknown tool "Teleport" ignored/)]);
  });

  it('come from the personal and project directories; a project file wins over a personal one of the same name; the built-in is always there', async () => {
    const home = tempDir('agents-home-');
    const cwd = tempDir('agents-cwd-');
    const put = (dir: string, name: string, description: string): void => {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${name}.md`), `---\nname: ${name}\ndescription: ${description}\n---\nBody of ${description}.\n`);
    };
    put(join(home, '.config', 'agent', 'agents'), 'docs', 'personal docs');
    put(join(home, '.claude', 'agents'), 'tests', 'personal tests');
    put(join(cwd, '.claude', 'agents'), 'docs', 'claude project docs');
    put(join(cwd, '.agent', 'agents'), 'docs', 'project docs');
    const catalog = await loadAgents({ cwd, home, configDir: join(home, '.config', 'agent') }, KNOWN);
    expect(catalog.list().map((a) => `${a.name}=${a.description}`)).toEqual([
      'explore=' + EXPLORE_AGENT.description,
      'tests=personal tests',
      'docs=project docs',
    ]);
    expect(catalog.get(undefined)).toBe(EXPLORE_AGENT);
    expect(catalog.warnings).toEqual([]);
  });

  it("the person's own folder is $XDG_CONFIG_HOME/agent, else ~/.config/agent, from the run's world; /agents shows an agent naming no tools with the read-only ones", async () => {
    const home = tempDir('agents-home-');
    const xdg = tempDir('agents-xdg-');
    const cwd = tempDir('agents-cwd-');
    const put = (dir: string, name: string, extra = ''): void => {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${name}.md`), `---\nname: ${name}\ndescription: ${name} agent${extra}\n---\nBody.\n`);
    };
    put(join(xdg, 'agent', 'agents'), 'from-xdg');
    put(join(home, '.config', 'agent', 'agents'), 'from-dot-config', '\ntools: Grep');
    const rowsIn = async (env: NodeJS.ProcessEnv) => {
      const world = { ...processWorld(), env, slots: new Map<symbol, unknown>() };
      return (await inWorld(world, () => loadAgents({ cwd }, KNOWN))).rows();
    };
    // mutation: `XDG_CONFIG_HOME && join(home, '.config')` (agentFiles.ts) reads ~/.config while XDG_CONFIG_HOME is set
    const xdgRows = await rowsIn({ HOME: home, XDG_CONFIG_HOME: xdg });
    expect(xdgRows.map((r) => r.name)).toEqual(['explore', 'from-xdg']);
    expect(xdgRows[1]?.tools).toEqual([...READ_ONLY_TOOLS]);
    const rows = await rowsIn({ HOME: home });
    expect(rows.map((r) => r.name)).toEqual(['explore', 'from-dot-config']);
    expect(rows[1]?.tools).toEqual(['Grep']);
  });
});

describe('a child', () => {
  it('gets the read-only tools by default, its agent’s list otherwise, and Task only below the nesting limit', () => {
    expect(childToolNames(EXPLORE_AGENT, ALL, 1, 1)).toEqual(['FileRead', 'Bash', 'Grep', 'Glob', 'Recall']);
    expect(childToolNames(EXPLORE_AGENT, ALL, 1, 2)).toEqual(['FileRead', 'Bash', 'Grep', 'Glob', 'Recall', 'Task']);
    expect(childToolNames({ ...EXPLORE_AGENT, tools: ['Edit', 'FileRead', 'Task'] }, ALL, 1, 1)).toEqual(['FileRead', 'Edit']);
  });

  it('is data through its life: queued, running with tools and tokens, ended', () => {
    let s = queuedChild('t1', EXPLORE_AGENT, 'find it', 0);
    expect(progressLine(s)).toBe('waiting for a slot (agents.parallel)');
    s = nextChildState(s, { type: 'started', sessionId: 's_1', model: 'm', at: 10 });
    s = nextChildState(s, { type: 'tool', line: 'Grep foo' });
    s = nextChildState(s, { type: 'tokens', tokens: 1500 });
    expect(progressLine(s)).toBe('1 tool · 1.5k tokens · m · Grep foo');
    s = nextChildState(s, { type: 'ended', status: 'failed', at: 20, error: 'x' });
    expect(s).toMatchObject({ status: 'failed', error: 'x', endedAt: 20, toolCalls: 1 });
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });

  it("'s report is cut only past the limit, keeping its head and naming the child", () => {
    expect(capReport('short', 10, 's_1')).toBe('short');
    const cut = capReport('a'.repeat(25), 10, 's_9');
    expect(cut.startsWith('a'.repeat(10) + '\n[… report cut: 15 more characters')).toBe(true);
    expect(cut).toContain('agent sessions show s_9');
  });
});

describe("the Task tool's input", () => {
  it('needs a label and a task; an agent named is a non-empty name (an empty one is refused, not taken as explore)', () => {
    const task = createTaskTool(new AgentCatalog([]), {} as SubagentHost);
    expect(task.parse({ description: 'look around', prompt: 'list the files' })).toEqual({ description: 'look around', prompt: 'list the files' });
    expect(task.parse({ description: 'look around', prompt: 'list the files', agent: 'explore' })).toMatchObject({ agent: 'explore' });
    // mutations: each `z.minLength(1)` made `z.minLength(0)` (taskTool.ts) lets its empty string through
    for (const input of [
      { description: '', prompt: 'list the files' },
      { description: 'look around', prompt: '' },
      { description: 'look around', prompt: 'list the files', agent: '' },
    ])
      expect(() => task.parse(input), JSON.stringify(input)).toThrow(ToolInputError);
  });
});
