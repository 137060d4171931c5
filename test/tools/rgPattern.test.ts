import { describe, expect, it } from 'vitest';
import { toRustRegex } from '../../src/tools/rgPattern.js';

describe('toRustRegex', () => {
  it('keeps what both engines read alike', () => {
    expect(toRustRegex('foo|ba?r+ {2,3}$')).toBe('foo|ba?r+ {2,3}$');
    expect(toRustRegex('(?:a)(?<name>b)')).toBe('(?:a)(?<name>b)');
    expect(toRustRegex('\\(x\\)\\/')).toBe('\\(x\\)/');
  });

  it('pins down classes whose meaning differs (Unicode in Rust, ASCII in JavaScript)', () => {
    expect(toRustRegex('\\d+')).toBe('[0-9]+');
    expect(toRustRegex('[\\w-]')).toBe('[0-9A-Za-z_-]');
    expect(toRustRegex('\\W')).toBe('[^0-9A-Za-z_]');
    expect(toRustRegex('\\bx\\B')).toBe('(?-u:\\b)x(?-u:\\B)');
    expect(toRustRegex('a.b')).toBe('a[^\\n\\r\\x{2028}\\x{2029}]b');
    expect(toRustRegex('\\u00e9\\u{1F600}\\x41\\cI')).toBe('\\x{E9}\\x{1F600}\\x{41}\\x{9}');
  });

  it('escapes what is literal in JavaScript classes but an operator in Rust', () => {
    expect(toRustRegex('[a&&b~~c[]')).toBe('[a\\&\\&b\\~\\~c\\[]');
    expect(toRustRegex('#&~')).toBe('\\#\\&\\~');
  });

  it('gives up on JavaScript-only syntax', () => {
    for (const p of ['(?<=a)b', '(?<!a)b', 'a(?=b)', 'a(?!b)', '(a)\\1', '(?<n>a)\\k<n>', '\\p{Lu}', '[^]', '[]', '[\\D]', '[a--b]', '\\uD83D\\uDE00']) {
      expect(toRustRegex(p), p).toBeUndefined();
    }
  });
});
