import { expect } from 'vitest';

/** Where `needle` first occurs in `text` at or after `from` (-1: nowhere). */
function find(text: string, needle: string | RegExp, from: number): number {
  if (typeof needle === 'string') return text.indexOf(needle, from);
  const at = text.slice(from).search(needle);
  return at === -1 ? -1 : from + at;
}

/**
 * Expects each needle in `text`, each after the one before; returns where each was found
 * (a RegExp with the m flag can anchor a needle to a line's end).
 */
export function expectInOrder(text: string, needles: Array<string | RegExp>): number[] {
  const at: number[] = [];
  let from = 0;
  for (const needle of needles) {
    const i = find(text, needle, from);
    expect(i, `${String(needle)} after position ${from}`).toBeGreaterThan(-1);
    at.push(i);
    from = i + 1;
  }
  return at;
}
