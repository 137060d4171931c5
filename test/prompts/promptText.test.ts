import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { promptText } from '../../src/promptText.js';
import SYSTEM_PROMPT from '../../src/agent/systemPrompt.md';

// Model-facing prose lives in .md files beside the code that sends it (src/promptText.ts).

const SRC = resolve(import.meta.dirname, '..', '..', 'src');
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));

describe('promptText', () => {
  it('is the text without its final newline, {{values}} filled in once', () => {
    expect(promptText('a {{x}} b {{x}}\n', { x: '{{y}} $& $1' })).toBe('a {{y}} $& $1 b {{y}} $& $1');
    expect(promptText('line\n\n')).toBe('line\n');
    expect(promptText('no newline')).toBe('no newline');
  });

  it('refuses a slot without a value and a value without a slot, naming them', () => {
    expect(() => promptText('a {{missing}}')).toThrow(/no value for \{\{missing\}\}/);
    expect(() => promptText('a {{x}}', { x: '1', extra: '2' })).toThrow(/\{\{extra\}\} not in/);
  });

  it('reads a prompt file as the file holds it (the text loader of vitest, as esbuild and tsx have)', () => {
    expect(SYSTEM_PROMPT).toBe(readFileSync(join(SRC, 'agent', 'systemPrompt.md'), 'utf8'));
  });

  it('keeps every prompt file beside the code that imports it, and none unused', () => {
    const md = files(SRC).filter((f) => f.endsWith('.md'));
    expect(md.length).toBeGreaterThan(20);
    const code = files(SRC).filter((f) => /\.tsx?$/.test(f));
    const orphans = md.filter((f) => {
      const name = `'./${f.slice(dirname(f).length + 1)}'`;
      return !code.some((c) => dirname(c) === dirname(f) && readFileSync(c, 'utf8').includes(name));
    });
    expect(orphans.map((f) => relative(SRC, f))).toEqual([]);
  });
});

// Mutations that fail: trimming every trailing newline (the second case), a global re-scan of
// values (the first), dropping either check (the second test), the vitest plugin returning
// the file as a module (the third), a prompt file left behind when its code moved (the fourth).
