import './force-color.js';
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/ui/markdown.js';

// Code blocks in colour (chalk's level is fixed when it is first imported: forced above).

const sgr = (s: string): string[] => s.match(/\u001b\[[\d;]*m/g) ?? [];
const bare = (s: string): string => s.replace(/\u001b\[[\d;]*m/g, '');

describe('code blocks in colour', () => {
  it('a fence with a language is coloured token by token', () => {
    const out = renderMarkdown('```python\ndef f(x):\n    return x + 1\n```', { width: 80, color: true });
    expect(bare(out)).toContain('def f(x):');
    expect(new Set(sgr(out)).size).toBeGreaterThan(2);
  });

  it('a fence without one is shown as it is, not guessed among 191 languages (hundreds of milliseconds a block)', () => {
    const code = 'const x = 1;\nfunction f() { return "s"; }';
    const out = renderMarkdown(`\`\`\`\n${code}\n\`\`\``, { width: 80, color: true });
    expect(bare(out)).toContain('const x = 1;');
    // the guess coloured "const", "function", "return" and the string as JavaScript
    expect(sgr(out)).toEqual([]);
  });
});
