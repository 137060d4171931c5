import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PastedTexts } from '../../src/ui/prompt-paste.js';

// A prompt that comes back to the input (one too large for the window) folds each paste back into
// its chip (PastedTexts.collapse). The TUI's paste path runs end to end in test/e2e/tui-paste.test.ts.

const lines = (n: number): string => Array.from({ length: n }, (_, i) => `log line ${i + 1}`).join('\n');

describe('a prompt that comes back holds its pastes as chips', () => {
  it('a paste that is part of a longer one: each comes back as its own chip', () => {
    const pastes = new PastedTexts(() => 0);
    let s = { text: 'compare ', cursor: 'compare '.length };
    s = pastes.insert(lines(20), s)!;
    s = { text: `${s.text} with `, cursor: s.text.length + ' with '.length };
    s = pastes.insert(lines(10), s)!;
    expect(s.text).toBe('compare [pasted text #1 · 20 lines] with [pasted text #2 · 10 lines]');
    const sent = pastes.expand(s.text);
    expect(sent).toBe(`compare ${lines(20)} with ${lines(10)}`);
    expect(pastes.collapse(sent)).toBe(s.text);
    // sent trimmed: a paste at the prompt's end comes back too
    expect(pastes.collapse(`compare ${lines(20)} with ${lines(10)}`.trim())).toBe(s.text);
  });
});

// Mutation checked: collapse folding the shortest paste first (`a[1].length - b[1].length`: the
// ten lines are folded inside the twenty, which then come back as raw text with a chip inside)
// fails this test (the fresh sample of 6 Dec, mutant 12).

describe('Ctrl+S: the pasted texts saved as files (attachAsFiles)', () => {
  it('puts an @mention of a file holding each paste in place of its chip; a prompt without one is left alone', () => {
    const pastes = new PastedTexts(() => 0);
    expect(pastes.attachAsFiles({ text: 'no paste here', cursor: 3 })).toBeUndefined();
    let s = { text: 'see ', cursor: 4 };
    s = pastes.insert(lines(20), s)!;
    s = { text: `${s.text} and `, cursor: s.text.length + 5 };
    s = pastes.insert(lines(12), s)!;
    const saved = pastes.attachAsFiles(s)!;
    const paths = [...saved.text.matchAll(/@(\S+)/g)].map((m) => m[1]!);
    expect(saved.text).toBe(`see @${paths[0]}  and @${paths[1]} `);
    expect(saved.cursor).toBe(saved.text.length);
    expect(paths.map((p) => readFileSync(p, 'utf8'))).toEqual([lines(20), lines(12)]);
    expect(statSync(paths[0]!).mode & 0o777).toBe(0o600);
  });
});
// Mutation checked: `chips.length !== 0` in attachAsFiles (prompt-paste.ts) fails it (pinsJ, 7 Dec)
