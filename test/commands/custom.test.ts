import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Capability } from '../../src/capability/capability.js';
import { type CustomCommand, inlineShell, loadCustomCommands, splitArgs, substituteArgs } from '../../src/commands/custom.js';
import { isCommandLine, runCommands } from '../../src/commands/registry.js';
import { turnAllows } from '../../src/session/turnAllow.js';
import { parseToolList } from '../../src/tools/toolNames.js';
import { tempDir } from '../tempDirs.js';

describe('custom command bodies', () => {
  it('number arguments from $1 as a shell does; $ARGUMENTS is all of them; missing ones are empty', () => {
    expect(splitArgs(`src/x.ts "two words" 'single q'`)).toEqual(['src/x.ts', 'two words', 'single q']);
    expect(substituteArgs('Fix $1 then $2; all: $ARGUMENTS; none: [$3]', 'a.ts "b c"')).toBe('Fix a.ts then b c; all: a.ts "b c"; none: []');
    expect(substituteArgs('Review the code.', 'src/x.ts')).toBe('Review the code.\n\nARGUMENTS: src/x.ts');
    expect(substituteArgs('Review the code.\n', '')).toBe('Review the code.\n');
  });

  it('inline each !`command` with what running it returned, in order', async () => {
    const ran: string[] = [];
    const out = await inlineShell('a !`git status` b !`ls -1`', async (c) => (ran.push(c), `<${c}>`));
    expect(out).toBe('a <git status> b <ls -1>');
    expect(ran).toEqual(['git status', 'ls -1']);
  });

  it('allowed-tools: Bash(git add:*) allows git add only; a bare tool allows it all; other rules grant nothing', () => {
    const { entries } = parseToolList('Bash(git add:*), Read, Edit(src/**)', ['FileRead', 'Edit', 'Bash']);
    expect(turnAllows(entries, 'Bash', { command: 'git add src/x.ts' })).toBe(true);
    expect(turnAllows(entries, 'Bash', { command: 'git add . && rm -rf /' })).toBe(false);
    expect(turnAllows(entries, 'Bash', { command: 'git push' })).toBe(false);
    expect(turnAllows(entries, 'FileRead', { path: '/x' })).toBe(true);
    expect(turnAllows(entries, 'Edit', { path: 'src/a.ts' })).toBe(false);
  });
});

describe('loading command files', () => {
  it('names by path (a folder is a namespace), reads frontmatter, reports clashes and bad files, and the first directory wins', async () => {
    const root = tempDir('cmds-');
    const a = join(root, 'a');
    const b = join(root, 'b');
    mkdirSync(join(a, 'frontend'), { recursive: true });
    mkdirSync(b, { recursive: true });
    writeFileSync(
      join(a, 'frontend', 'review.md'),
      '---\ndescription: Review UI\nargument-hint: <component>\nmodel: claude-haiku-4-5\nallowed-tools:\n  - Read\n  - Bash(git diff:*)\n---\nReview $1\n',
    );
    writeFileSync(join(a, 'plain.md'), 'First line is the description\nmore\n');
    writeFileSync(join(a, 'help.md'), 'clash\n');
    writeFileSync(join(a, 'broken.md'), '---\ndescription: [unclosed\n---\nbody\n');
    writeFileSync(join(b, 'plain.md'), 'the user one loses\n');
    const loaded = await loadCustomCommands(
      [
        { dir: a, source: 'project' },
        { dir: b, source: 'user' },
        { dir: join(root, 'missing'), source: 'user' },
      ],
      ['help', 'compact'],
    );
    expect(loaded.commands.map((c) => c.name).sort()).toEqual(['frontend:review', 'plain']);
    expect(loaded.commands.find((c) => c.name === 'frontend:review')).toMatchObject({
      description: 'Review UI',
      args: '<component>',
      model: 'claude-haiku-4-5',
      allowedTools: ['Read', 'Bash(git diff:*)'],
    });
    expect(loaded.commands.find((c) => c.name === 'plain')).toMatchObject({
      description: 'First line is the description',
      source: expect.stringContaining('project'),
    });
    expect(loaded.warnings.join('\n')).toContain('help.md: /help is a built-in command, which wins');
    expect(loaded.warnings.join('\n')).toMatch(/broken\.md: the frontmatter is not valid YAML/);
  });
});

describe('what is a command line', () => {
  it('a lone /word naming nothing and no path is an unknown command; a path or a sentence stays a prompt', () => {
    expect(isCommandLine('/zzqx')).toBe(true);
    expect(isCommandLine('/tmp')).toBe(false);
    expect(isCommandLine('/etc/hosts is it fine?')).toBe(false);
    expect(isCommandLine('/zzqx is a word I made up')).toBe(false);
    expect(isCommandLine('/frontend:review x', [{ name: 'frontend:review', description: '', body: '', file: '', source: '' }])).toBe(true);
  });
});

describe("a run's commands", () => {
  it("the capabilities' slash commands, and the custom ones each capability merges in, one after another, with their warnings", async () => {
    const cwd = tempDir('run-commands-');
    mkdirSync(join(cwd, '.agent', 'commands'), { recursive: true });
    writeFileSync(join(cwd, '.agent', 'commands', 'review.md'), 'Review the diff.');
    const seen: string[][] = [];
    const adding = (name: string, command?: string): Capability => ({
      name,
      ...(command ? { commands: [{ name: command, description: command, run: async () => undefined }] } : {}),
      customCommands: (found, builtIn) => {
        seen.push(builtIn.filter((b) => b === 'help' || b.startsWith('cap-')));
        const own: CustomCommand = { name: `${name}-skill`, description: name, body: '', file: `${name}.md`, source: name };
        return { commands: [...found, own], warnings: [`${name} merged ${found.map((c) => c.name).join(',')}`] };
      },
      open: () => {
        throw new Error('not opened here');
      },
    });
    const home = tempDir('run-commands-home-');
    const r = await runCommands([adding('first', 'cap-one'), adding('second')], cwd, { HOME: home, XDG_CONFIG_HOME: join(home, '.config') });
    expect(r.slash.map((c) => c.name)).toEqual(['cap-one']);
    expect(r.custom.map((c) => c.name)).toEqual(['review', 'first-skill', 'second-skill']);
    expect(r.warnings).toEqual(['first merged review', 'second merged review,first-skill']);
    // each is given the built-in names and the capabilities' commands
    expect(seen).toEqual([
      ['help', 'cap-one'],
      ['help', 'cap-one'],
    ]);
  });
});
