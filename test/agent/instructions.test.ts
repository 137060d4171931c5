import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configHome, INSTRUCTIONS_MAX_CHARS, loadInstructions, renderInstructions } from '../../src/agent/instructions.js';
import { tempDir } from '../tempDirs.js';

function tree(): { root: string; sub: string; deep: string; personal: string } {
  const root = tempDir('agent-instr-');
  const repo = join(root, 'repo');
  const sub = join(repo, 'packages', 'api');
  const deep = join(sub, 'src');
  mkdirSync(join(repo, '.git'), { recursive: true });
  mkdirSync(deep, { recursive: true });
  const personal = join(root, 'config', 'agent');
  mkdirSync(personal, { recursive: true });
  writeFileSync(join(root, 'AGENTS.md'), 'outside the repository: never read\n');
  writeFileSync(join(repo, 'AGENTS.md'), 'root rule: run npm test\n');
  writeFileSync(join(sub, 'CLAUDE.md'), 'api rule from CLAUDE.md\n');
  writeFileSync(join(deep, 'AGENTS.md'), 'src rule from AGENTS.md\n');
  writeFileSync(join(deep, 'CLAUDE.md'), 'shadowed: AGENTS.md wins in this directory\n');
  writeFileSync(join(personal, 'AGENTS.md'), 'personal rule: answer in British English\n');
  return { root, sub, deep, personal };
}

describe('the instructions hierarchy', () => {
  it('reads the personal file, then AGENTS.md (or CLAUDE.md) from the repository root down to cwd', () => {
    const t = tree();
    const files = loadInstructions(t.deep, { configHome: t.personal });
    expect(files.map((f) => f.text.trim())).toEqual([
      'personal rule: answer in British English',
      'root rule: run npm test',
      'api rule from CLAUDE.md',
      'src rule from AGENTS.md',
    ]);
    expect(files[0]!.scope).toBe('personal');
    const text = renderInstructions(files, t.deep);
    expect(text).toContain('## ../../../AGENTS.md');
    expect(text).toContain('## AGENTS.md');
    expect(text).not.toContain('shadowed');
    expect(text).not.toContain('never read');
  });

  it('outside a repository only the working directory counts; the total is bounded', () => {
    const dir = tempDir('agent-instr-norepo-');
    writeFileSync(join(dir, 'CLAUDE.md'), 'x'.repeat(INSTRUCTIONS_MAX_CHARS + 10));
    const files = loadInstructions(dir, { configHome: join(dir, 'none') });
    expect(files).toHaveLength(1);
    expect(files[0]!.truncated).toBe(true);
    expect(files[0]!.text.length).toBe(INSTRUCTIONS_MAX_CHARS);
  });

  it('the personal file lives under XDG_CONFIG_HOME, else ~/.config', () => {
    expect(configHome({ XDG_CONFIG_HOME: '/x/cfg' }, '/home/u')).toBe('/x/cfg/agent');
    expect(configHome({}, '/home/u')).toBe('/home/u/.config/agent');
  });
});
