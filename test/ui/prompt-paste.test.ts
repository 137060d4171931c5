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
