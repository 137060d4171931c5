// Assistant text as terminal Markdown: headings, lists, tables, inline code, and code blocks
// highlighted by cli-highlight (through marked-terminal).
import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';
import stripAnsi from 'strip-ansi';
import { sanitize } from './sanitize.js';

export interface MarkdownOptions {
  /** Columns available; text is reflowed to fit. */
  width: number;
  color: boolean;
}

const instances = new Map<string, Marked>();

/** The languages a fence without one may be guessed among: none. */
const NO_GUESSING: string[] = [];

function instance(width: number, color: boolean): Marked {
  const key = `${width}:${color}`;
  let m = instances.get(key);
  if (!m) {
    m = new Marked();
    // Without colour, headings keep their "#" and inline code its backticks, so that they still read as such.
    const plain = color ? {} : { codespan: (s: string) => `\`${s}\`` };
    // A fence without a language is shown uncoloured: guessing it (highlight.js's auto-detection
    // over its 191 languages) took ~730 ms of the main thread for the first such block and ~240 ms
    // for a 60-line one after, while the app takes no keys; a labelled fence is coloured as before.
    m.use(
      markedTerminal(
        { width, reflowText: true, tab: 2, emoji: false, showSectionPrefix: !color, ...plain },
        { ignoreIllegals: true, languageSubset: NO_GUESSING },
      ),
    );
    // marked-terminal 7 renders a list item's text token raw (`code` and **bold** stay literal) and
    // prints a task's checkbox twice; these two renderers fix that and defer to it otherwise.
    m.use({
      renderer: {
        text(token) {
          return 'tokens' in token && token.tokens ? this.parser.parseInline(token.tokens) : false;
        },
        checkbox(token) {
          return 'type' in token && token.type === 'checkbox' ? '' : false;
        },
      },
    });
    instances.set(key, m);
  }
  return m;
}

/** Renders (sanitized) Markdown to a string of terminal lines; plain text when colour is off. */
export function renderMarkdown(text: string, { width, color }: MarkdownOptions): string {
  const clean = sanitize(text);
  if (clean.trim() === '') return '';
  let out: string;
  try {
    out = instance(Math.max(20, width), color).parse(clean, { async: false });
  } catch {
    return clean.trim();
  }
  out = out.replace(/\s+$/, '').replace(/^\n+/, '');
  return color ? out : stripAnsi(out);
}
