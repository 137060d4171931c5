import { describe, expect, it } from 'vitest';
import { PermissionPolicy, planAllows, planRefusal } from '../../src/tools/permissions.js';
import { isReadOnlyCommand } from '../../src/tools/readOnlyCommand.js';

// Plan mode as the permission policy holds it: only what cannot change anything runs.

const bash = { name: 'Bash', kind: 'execute' } as const;
const edit = { name: 'Edit', kind: 'edit' } as const;
const write = { name: 'Write', kind: 'edit' } as const;
const read = { name: 'FileRead', kind: 'read' } as const;
const task = { name: 'Task', kind: 'agent' } as const;
const mcpWrite = { name: 'mcp__db__insert', kind: 'mcp' } as const;
const mcpRead = { name: 'mcp__db__query', kind: 'mcp', traits: { readOnly: true, mutating: false } } as const;
const plan = (allow: Partial<{ allowTools: string[]; allowBash: string[] }> = {}) =>
  new PermissionPolicy({ mode: 'plan', allowTools: [], allowBash: [], readPaths: [], ...allow });
const inside = { abs: '/p/a.ts', cwd: '/p' };

describe('plan mode', () => {
  it('runs reads, read-only MCP tools and sub-agents; refuses edits, writes, mutating MCP tools and commands that are not read-only', () => {
    const p = plan();
    expect(p.decide(read, { path: 'a.ts' })).toBe('allow');
    expect(p.decide(task, {})).toBe('allow');
    expect(p.decide(mcpRead, {})).toBe('allow');
    expect(p.decide(mcpWrite, {})).toBe('deny');
    expect(p.decide(edit, {}, inside)).toBe('deny');
    expect(p.decide(write, {}, inside)).toBe('deny');
    expect(p.decide(bash, { command: 'touch x' })).toBe('deny');
    expect(p.decide(bash, { command: 'git status && ls -la src | grep ts' })).toBe('allow');
  });

  it('is not widened by rules the person gave (allowTools, allowBash, a remembered prefix)', () => {
    const p = plan({ allowTools: ['Edit', 'Bash'], allowBash: ['touch'] });
    p.remember(bash, { kind: 'allow_prefix', prefix: 'rm' });
    expect(p.decide(edit, {}, inside)).toBe('deny');
    expect(p.decide(bash, { command: 'touch x' })).toBe('deny');
    expect(p.decide(bash, { command: 'rm x' })).toBe('deny');
  });

  it('classifies commands conservatively', () => {
    for (const c of [
      'ls',
      'cat a b',
      'rg foo src',
      'git log --oneline -5',
      'git diff HEAD~1',
      'find . -name "*.ts"',
      'wc -l x 2>/dev/null',
      'git branch -a',
      'sort a',
    ])
      expect(isReadOnlyCommand(c), c).toBe(true);
    for (const c of [
      'touch x',
      'rm -rf build',
      'echo hi > out.txt',
      'cat a >> b',
      'find . -delete',
      'find . -name x -exec rm {} ;',
      'sort -o out a',
      'git commit -m x',
      'git branch new',
      'git diff --output=patch',
      'ls $(rm x)',
      'FOO=1 ls',
      'npm test',
      'sed -i s/a/b/ f',
      'date -s 2020-01-01',
      '',
    ])
      expect(isReadOnlyCommand(c), c).toBe(false);
  });

  it('refuses a reader given an option that runs a program or writes a file, however it is spelled', () => {
    for (const c of [
      'rg --pre rm zzz victim',
      'rg --pre=rm zzz victim',
      'rg --pre-glob "*" --pre cat x',
      'rg -z foo',
      'rg -iz foo',
      'rg --search-zip foo',
      'rg --hostname-bin=touch foo',
      'git grep --open-files-in-pager="touch gg.txt" hi',
      'git grep -Otouch hi',
      'git grep -O hi',
      'git grep -iOtouch hi',
      'git grep --open hi',
      'git grep --textconv hi',
      'git diff --ext-diff',
      'git log -p --ext-diff',
      'git show --textconv HEAD',
      'git diff --out=patch',
      'git log --output=f',
      'git cat-file --filters HEAD:a',
      'git blame --textconv a',
      'git -c core.pager=touch log',
      'git -C .. log',
      'sort -ro out a',
      'sort --out=x a',
      'sort --compress-program=sh a',
      'date -us 2020-01-01',
      'date --se=2020-01-01',
      'tree -o out.txt',
      'tree -aR',
      'file -C -m magic',
      'file -z a.gz',
      'diff -l a b',
      'diff --paginate a b',
      'find . -fprint out',
      'find . -fls out',
      'find . -execdir rm {} +',
      'sed -n p f',
      "sed 's/a/b/w out' f",
      'awk \'{ system("rm x") }\' f',
      'less f',
      'man ls',
      'tar -tf x.tar',
      'xargs rm',
      'env ls',
      'ls | sh',
    ])
      expect(isReadOnlyCommand(c), c).toBe(false);
    for (const c of [
      'rg --pretty -i foo',
      'rg -tzig foo',
      'rg -e z foo',
      'git grep -e Output hi',
      'git grep -n hi -- src',
      'git diff --stat --no-ext-diff',
      'git diff --output-indicator-new=+',
      'git log --oneline -n 5',
      'sort -t, -k2 a',
      'date -Iseconds',
      'date +%s',
      'tree -L 2 -a',
      'file -b a',
      'diff -u a b',
      'git cat-file -p HEAD',
    ])
      expect(isReadOnlyCommand(c), c).toBe(true);
  });

  it('tells the model why, naming the call, and not to retry', () => {
    expect(planAllows(bash, { command: 'touch x' })).toBe(false);
    const why = planRefusal('Bash', 'touch x');
    expect(why).toContain('Plan mode is on');
    expect(why).toContain('touch x');
    expect(planRefusal('Edit', 'a.ts')).toContain('Edit can change things');
  });
});
// Mutations that fail these: dropping the plan branch of decide (Edit asks instead of deny), an allowTools check before it,
// a reader set that takes `touch`, a find without the -exec check. The option test fails with rg back in the plain
// reader set, isDangerous matching only exact long names (--out=patch, --open pass), only a cluster's first letter
// (-iOtouch, -ro pass), or without the takesValue stop (-tzig, -Iseconds refused), and with git grep's short 'O' dropped.
