// marked, marked-terminal and cli-highlight (highlight.js) are over half of the interactive
// app's code and no first frame of a new session needs them: they load right after it. Until
// then a reply shows as plain text, and the App prints the transcript again once they are in.
import type { MarkdownOptions } from './markdown.js';
import { sanitize } from './sanitize.js';

let renderer: typeof import('./markdown.js') | undefined;
let loading: Promise<void> | undefined;
let shownPlain = false;

export function loadMarkdown(): Promise<void> {
  loading ??= import('./markdown.js').then((m) => {
    renderer = m;
  });
  return loading;
}

/** Some text was shown plain because the renderer was not loaded yet. */
export const markdownShownPlain = (): boolean => shownPlain;

/** renderMarkdown once it is loaded; until then the sanitized text as it is. */
export function renderMarkdownWhenLoaded(text: string, opts: MarkdownOptions): string {
  if (renderer) return renderer.renderMarkdown(text, opts);
  shownPlain = true;
  return sanitize(text).trim();
}
