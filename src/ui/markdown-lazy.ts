// marked, marked-terminal and cli-highlight (highlight.js) are over half of the interactive
// app's code and no first frame of a new session needs them: they load right after it. Until
// then a reply shows as plain text, and the App prints the transcript again once they are in —
// only when a text shown plain reads differently rendered: the reprint clears the visible screen
// only, and a terminal that keeps the cleared screen in its history (tmux) then holds the
// transcript twice.
import stripAnsi from 'strip-ansi';
import type { MarkdownOptions } from './markdown.js';
import { sanitize } from './sanitize.js';

let renderer: typeof import('./markdown.js') | undefined;
let loading: Promise<void> | undefined;
/** The texts shown plain before the renderer loaded (a first frame's few: a screenful at most). */
let shownPlain: Array<{ text: string; opts: MarkdownOptions }> = [];

export function loadMarkdown(): Promise<void> {
  loading ??= import('./markdown.js').then((m) => {
    renderer = m;
  });
  return loading;
}

/**
 * Some text was shown plain because the renderer was not loaded yet, and (once it is) reads
 * differently rendered: its characters, not only its colours, change.
 */
export function markdownShownPlain(): boolean {
  const r = renderer;
  if (!r) return shownPlain.length > 0;
  // white space aside: the renderer wraps at the width where Ink wrapped the plain text
  const words = (t: string): string => t.replace(/\s+/g, ' ').trim();
  const differs = shownPlain.some(({ text, opts }) => words(stripAnsi(r.renderMarkdown(text, opts))) !== words(sanitize(text)));
  shownPlain = differs ? shownPlain : [];
  return differs;
}

/** renderMarkdown once it is loaded; until then the sanitized text as it is. */
export function renderMarkdownWhenLoaded(text: string, opts: MarkdownOptions): string {
  if (renderer) return renderer.renderMarkdown(text, opts);
  shownPlain.push({ text, opts });
  return sanitize(text).trim();
}
