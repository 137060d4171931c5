import { describe, expect, it } from 'vitest';
import { brief } from '../../src/mcp/connection.js';

// What an MCP notice repeats of a web server's answer (brief in mcp/connection.ts): one line, an
// HTML page by its title or its text without tags, at most 200 characters.

describe('brief: a web server said, in one line', () => {
  it('an HTML page by its title, trimmed; without a title, its text without scripts, styles and tags', () => {
    expect(brief('<!DOCTYPE html>\n<html><head><title>\n  502 Bad Gateway\n</title></head><body><p>nginx</p></body></html>')).toBe('502 Bad Gateway');
    expect(brief('<html><body>\n<script>var x = 1;</script><style>p { color: red }</style>\n<h1>Oops</h1>\n<p>it&nbsp;broke</p>\n</body></html>\n')).toBe(
      'Oops it broke',
    );
  });
  // mutation: dropping the `.trim()` keeps the title's spaces (" 502 Bad Gateway ")

  it('a page known as HTML by its doctype alone (a bare error body with no other tag) still loses its tags', () => {
    expect(brief('<!doctype html>\n<span>Service</span> <em>Unavailable</em>\n')).toBe('Service Unavailable');
  });
  // mutation: the doctype left out of what marks HTML keeps the page's tags

  it('plain text on one line, as it came but for its spaces; a tag-like "<" in plain text is left alone', () => {
    expect(brief('  upstream timed out\n\n(after 30 s)  ')).toBe('upstream timed out (after 30 s)');
    expect(brief('a < b and <b> is bold')).toBe('a < b and <b> is bold');
  });

  it('cut to 200 characters with an ellipsis; exactly 200 is kept whole', () => {
    const whole = 'x'.repeat(200);
    expect(brief(whole)).toBe(whole);
    const cut = brief('y'.repeat(201));
    expect(cut).toHaveLength(200);
    expect(cut.endsWith('y…')).toBe(true);
  });
  // mutations: `BRIEF_CHARS = 201`, `plain.length >= BRIEF_CHARS` or `BRIEF_CHARS - 0` each fail it
});
