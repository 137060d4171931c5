import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../src/llm/messages.js';
import { loadSkills, nestedSkillDirs, skillDirs } from '../../src/skills/discovery.js';
import { listingBudget, renderListing } from '../../src/skills/listing.js';
import { loadedNames, skillsAfterCompaction, wrapSkill } from '../../src/skills/loaded.js';
import { SkillCatalog } from '../../src/skills/catalog.js';
import { applySkill } from '../../src/skills/host.js';
import type { SkillHost } from '../../src/skills/types.js';
import { skillsText } from '../../src/skills/view.js';
import { parseSkillFile, plainFrontmatter, splitToolText, type Skill } from '../../src/skills/skillFile.js';

const where = { scope: 'project' as const, source: 'project .claude/skills' };
const parseOne = (text: string, file = '/p/.claude/skills/deploy/SKILL.md') => parseSkillFile(text, file, where, parse);

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'skills-'));
  dirs.push(d);
  return d;
};

describe('SKILL.md', () => {
  it('reads the standard fields and Claude Code extras', () => {
    const r = parseOne(
      '---\nname: deploy\ndescription: Deploys\nlicense: MIT\nmetadata:\n  version: 2\nallowed-tools: Bash(git:*) Read\ndisable-model-invocation: true\ncontext: fork\neffort: high\n---\nBody $ARGUMENTS\n',
    );
    if ('error' in r) throw new Error(r.error);
    expect(r.skill).toMatchObject({
      name: 'deploy',
      description: 'Deploys',
      license: 'MIT',
      metadata: { version: '2' },
      allowedTools: ['Bash(git:*)', 'Read'],
      disableModelInvocation: true,
      fork: true,
      effort: 'high',
      dir: '/p/.claude/skills/deploy',
    });
    expect(r.skill.body).toBe('Body $ARGUMENTS\n');
  });

  // mutation: a missing description accepted, a bad name accepted, an unknown context value accepted
  it('names the file and the field of a broken one', () => {
    expect(parseOne('no frontmatter')).toEqual({ error: expect.stringContaining('SKILL.md: no frontmatter') });
    expect(parseOne('---\nname: deploy\n---\nx')).toEqual({ error: expect.stringContaining('field "description" is missing') });
    expect(parseOne('---\nname: Deploy_It\ndescription: d\n---\nx')).toEqual({ error: expect.stringContaining('field "name"') });
    expect(parseOne('---\ndescription: d\ncontext: spawn\n---\nx')).toEqual({ error: expect.stringContaining('field "context"') });
    expect(parseOne('---\ndescription: [d\n---\nx')).toEqual({ error: expect.stringContaining('not valid YAML') });
  });

  it('/skills says a skill named like a built-in command is not /name (the built-in runs), and shows /name for the others', () => {
    const one = (text: string, dir: string) => {
      const r = parseOne(text, `/p/.claude/skills/${dir}/SKILL.md`);
      if (!('skill' in r)) throw new Error(r.error);
      return r.skill;
    };
    const catalog = new SkillCatalog({
      skills: [one('---\nname: compact\ndescription: Packs the repo\n---\nx', 'compact'), one('---\nname: ship\ndescription: Ships\n---\ny', 'ship')],
      warnings: [],
    });
    const text = skillsText(catalog, 200_000, new Set(), ['compact', 'context']);
    // mutation: the built-ins ignored lists "/compact" as if typing it ran the skill
    expect(text).toContain('compact  project .claude/skills · not /compact (the built-in command runs), model ·');
    expect(text).toContain('ship  project .claude/skills · /ship, model ·');
  });

  it("says where a frontmatter's YAML is wrong in one line of the file's own numbering, never 'column 14:;'", () => {
    const r = parseOne('---\nname: deploy\ndescription: Use when: the thing\n---\nx');
    // mutation: the yaml message's first line as it is ("… at line 2, column 14:") fails this
    expect(r).toEqual({
      error:
        '/p/.claude/skills/deploy/SKILL.md: the frontmatter is not valid YAML: Nested mappings are not allowed in compact mappings at line 3, column 14 (`description: Use when: the thing`); the skill is skipped',
    });
  });

  // mutation: the fast reader guessing where YAML would read otherwise (a number, a boolean, a quoted string, a colon)
  it('reads the common frontmatter without the YAML library exactly as YAML does, and hands the rest to it', () => {
    const samples = [
      'name: a\ndescription: Does things (well), see docs/x.md\nlicense: MIT',
      'name: a\ndescription: "quoted: with colon"\nuser-invocable: false\neffort: high',
      "name: a\ndescription: 'single'\nallowed-tools:\n  - Bash(git:*)\n  - Read\n# a comment\nmetadata:\n  version: 1.2\n  author: me",
      'name: a\ndescription: Bash(git:*) Read\nmodel: ~\ncount: 12\nflag: true',
      'name: a\ndescription: has: a colon',
      'name: a\ndescription: >\n  folded\n  text',
      'name: a\ndescription: [x, y]',
      'name: a\ndescription: value # comment',
      'name: a\ndescription: 0x1f',
      'name: a\ndescription: 1e3',
      'name: a\nname: b',
    ];
    let fast = 0;
    for (const text of samples) {
      const mine = plainFrontmatter(text);
      if (mine === undefined) continue;
      fast++;
      expect(mine, text).toEqual(parse(text));
    }
    expect(fast).toBe(4);
  });

  it('splits allowed-tools at commas when there are any, else at blanks, never inside parentheses', () => {
    expect(splitToolText('Bash(git add:*), Read')).toEqual(['Bash(git add:*)', 'Read']);
    expect(splitToolText('Bash(git add:*) Read')).toEqual(['Bash(git add:*)', 'Read']);
  });
});

describe('discovery', () => {
  it('walks from the working directory up to the repository root, then the person’s folders; the nearer wins with a notice', async () => {
    const root = tmp();
    const home = join(root, 'home');
    const repo = join(root, 'repo');
    const cwd = join(repo, 'pkg');
    mkdirSync(join(repo, '.git'), { recursive: true });
    const put = (dir: string, name: string, desc: string): void => {
      mkdirSync(join(dir, name), { recursive: true });
      writeFileSync(join(dir, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${desc}\n---\nbody\n`);
    };
    put(join(cwd, '.claude/skills'), 'a', 'near');
    put(join(repo, '.agents/skills'), 'a', 'far');
    put(join(repo, '.agents/skills'), 'b', 'repo');
    put(join(home, '.agents/skills'), 'c', 'user');
    put(join(root, '.claude/skills'), 'outside', 'above the repository');
    const found = await loadSkills(skillDirs(cwd, { HOME: home }, home));
    expect(found.skills.map((s) => [s.name, s.description, s.scope])).toEqual([
      ['a', 'near', 'project'],
      ['b', 'repo', 'project'],
      ['c', 'user', 'user'],
    ]);
    expect(found.warnings).toEqual([
      expect.stringMatching(/repo\/\.agents\/skills\/a\/SKILL\.md: the skill "a" is also in .*pkg\/\.claude\/skills\/a\/SKILL\.md, which wins/),
    ]);
  });

  it('nested folders between the working directory and a file, nearest first', () => {
    expect(nestedSkillDirs('/w', '/w/src/web/x.ts').map((d) => d.dir)).toEqual([
      '/w/src/web/.agent/skills',
      '/w/src/web/.claude/skills',
      '/w/src/web/.agents/skills',
      '/w/src/.agent/skills',
      '/w/src/.claude/skills',
      '/w/src/.agents/skills',
    ]);
    expect(nestedSkillDirs('/w', '/elsewhere/x.ts')).toEqual([]);
  });
});

const mk = (name: string, description: string, over: Partial<Skill> = {}): Skill => ({
  name,
  description,
  body: `${name} body`,
  file: `/s/${name}/SKILL.md`,
  dir: `/s/${name}`,
  scope: 'project',
  source: 'project',
  disableModelInvocation: false,
  userInvocable: true,
  fork: false,
  ...over,
});

describe('the listing', () => {
  // mutation: no sort (order-dependent bytes), disable-model-invocation listed, the budget ignored
  it('is sorted, leaves out user-only skills, and stays within its budget even for 200 long descriptions', () => {
    const a = renderListing([mk('b', 'second'), mk('a', 'first'), mk('hidden', 'x', { disableModelInvocation: true })], 200_000);
    expect(a).toContain('- a: first\n- b: second');
    expect(a).not.toContain('hidden');
    const many = Array.from({ length: 200 }, (_, i) => mk(`skill-${i}`, `Does thing number ${i} `.repeat(30)));
    for (const window of [200_000, 32_000]) {
      const text = renderListing(many, window);
      expect(text.length).toBeLessThanOrEqual(listingBudget(window));
      expect(renderListing([...many].reverse(), window)).toBe(text);
    }
    expect(renderListing(many, 32_000)).toMatch(/more skills: the Skill tool loads any by name/);
  });
});

const msg = (text: string, id: string, kind: Message['kind'] = 'normal'): Message => ({
  id,
  role: 'user',
  kind,
  blocks: [{ type: 'text', text }],
  createdAt: 0,
});

describe('re-attaching after compaction', () => {
  it('puts back what the compacted history lost, newest first, and names the rest by Recall id', () => {
    const before = [
      msg(wrapSkill(mk('a', ''), 'A'.repeat(400)), 'm1'),
      msg(wrapSkill(mk('b', ''), 'B body'), 'm2'),
      msg(wrapSkill(mk('c', ''), 'C body'), 'm3'),
    ];
    const after = [msg('checkpoint', 'cp'), before[2]!];
    const note = skillsAfterCompaction(before, after, { totalTokens: 50, eachTokens: 50 })!;
    const text = (note.blocks[0] as { text: string }).text;
    expect(text).toContain('B body');
    expect(text).not.toContain('C body'); // still in the kept tail
    expect(text).toContain('- a: Recall id m1');
    expect([...loadedNames([...after, note])].sort()).toEqual(['b', 'c']);
    // a later compaction still knows a, from the note's Recall line
    const again = skillsAfterCompaction([...after, note], [msg('cp2', 'cp2')], { totalTokens: 50, eachTokens: 50 })!;
    expect((again.blocks[0] as { text: string }).text).toContain('- a: Recall id m1');
    expect(skillsAfterCompaction(after, after)).toBeUndefined();
  });
});

describe("a skill's !`command`s", () => {
  it("run as approved with a project skill the person let run code; a personal skill's go through the gate one by one", async () => {
    const ran: Array<[string, boolean]> = [];
    const host: SkillHost = {
      catalog: { mayRunCode: async () => true } as unknown as SkillCatalog,
      loaded: () => new Set(),
      allow: () => [],
      shell: async (command, _signal, approved) => (ran.push([command, approved]), 'main'),
      notice: () => {},
    };
    const body = 'The branch: !`git branch --show-current`';
    const project = await applySkill(mk('deploy', 'Deploys', { body }), '', host, new AbortController().signal);
    expect(project.text).toContain('The branch: main');
    await applySkill(mk('mine', 'Mine', { body, scope: 'user', source: 'user ~/.agents/skills' }), '', host, new AbortController().signal);
    // mutation: `code || skill.scope === 'project'` (skills/host.ts) runs a personal skill's commands as approved, unasked
    expect(ran).toEqual([
      ['git branch --show-current', true],
      ['git branch --show-current', false],
    ]);
  });
});
